package mcp

import (
	"demiurge.dev/host/egress"

	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/pathrules"
	"demiurge.dev/shared/sandbox"
)

// sandboxServer starts a stdio server that opted in (`sandbox:` in its
// manifest) through the OS sandbox helper: the host wraps the guard
// itself, so the server and everything it starts run confined. The mode
// is the manifest's, tightened by the session's; the operator's --sandbox
// off runs it unconfined. A mode the kernel cannot enforce fails the
// connection (it asked for a sandbox; it never gets less). wrapped says
// whether cmd now starts through the helper's sandbox (whose pid
// namespace ends whole with its init).
func sandboxServer(cmd *exec.Cmd, p *plan, cfg dialConfig) (px *egress.Proxy, wrapped bool, err error) {
	px, err = sandboxWrap(cmd, p, cfg)
	return px, err == nil && p.server.Sandbox != "" && cfg.sandbox.Mode != sandbox.Off, err
}

func sandboxWrap(cmd *exec.Cmd, p *plan, cfg dialConfig) (*egress.Proxy, error) {
	asked := p.server.Sandbox
	if asked == "" {
		return nil, nil
	}
	s := p.server
	sc := cfg.sandbox
	if sc.Mode == "" {
		return nil, fmt.Errorf("%s asks for the OS sandbox (sandbox: %s), and none is configured in this host", s.ID, asked)
	}
	if sc.Mode == sandbox.Off {
		return nil, nil
	}
	mode := sandbox.Tighter(sc.Mode, sandbox.Mode(asked))
	if miss := sc.Unenforceable(mode); miss != "" {
		return nil, fmt.Errorf("%s asks for the OS sandbox (mode %s), and it cannot be enforced here: the kernel lacks %s", s.ID, mode, miss)
	}
	pol, err := serverPolicy(p, cfg, mode)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.ID, err)
	}
	// Network mode goes only through an egress proxy of the server's own,
	// which lives as long as the server (stdio.go closes it).
	var px *egress.Proxy
	if mode == sandbox.Network {
		if px, err = egress.Start(sc.Egress.Config(), nil); err != nil {
			return nil, fmt.Errorf("%s: network mode goes only through the host's egress proxy, which cannot start: %w", s.ID, err)
		}
		pol.Proxy = px.Socket()
	}
	if err := sandbox.Wrap(cmd, sc.Helper, pol); err != nil {
		if px != nil {
			px.Close()
		}
		return nil, fmt.Errorf("%s: sandbox %s: %w", s.ID, mode, err)
	}
	return px, nil
}

// serverPolicy: the workspace (written only in the write modes; the core
// and sandboxing.WorkspaceProtected held), the program and its script and
// the PATH readable, a private tmp dir under the runtime directory.
func serverPolicy(p *plan, cfg dialConfig, mode sandbox.Mode) (sandbox.Policy, error) {
	if cfg.stateDir == "" {
		return sandbox.Policy{}, errors.New("the sandboxed server needs a private tmp dir, and the host has no state directory")
	}
	tmp := filepath.Join(cfg.stateDir, "runtime", "mcp-tmp", p.server.ID)
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return sandbox.Policy{}, fmt.Errorf("the sandboxed server's private tmp dir: %w", err)
	}
	ws := p.workspace
	// Cwd: the helper changes to the checked directory by path in its own
	// mount namespace and makes sure it is the one pinned (stdio.go).
	pol := sandbox.Policy{Mode: mode, Workspace: ws, TmpDir: tmp, Helper: cfg.sandbox.Helper, Cwd: p.cwd}
	cfg.sandbox.Limits.Apply(&pol)
	pol.HostOwned, pol.HostPrivate = cfg.sandbox.HostOwned, cfg.sandbox.HostPrivate
	pol.Protected = append(pol.Protected, cfg.sandbox.Protected...)
	held, watched := sandboxing.WorkspaceProtected(ws)
	pol.Protected, pol.Watched = append(pol.Protected, held...), watched
	readable := []string{filepath.Dir(p.command)}
	if p.script != "" {
		readable = append(readable, filepath.Dir(p.script))
	}
	for _, kv := range cfg.env {
		if v, ok := cutPath(kv); ok {
			readable = append(readable, filepath.SplitList(v)...)
		}
	}
	for _, d := range readable {
		if filepath.IsAbs(d) && !pathrules.IsSensitive(d) {
			pol.ReadOnly = append(pol.ReadOnly, filepath.Clean(d))
		}
	}
	return pol, nil
}

func cutPath(kv string) (string, bool) {
	const k = "PATH="
	if len(kv) > len(k) && kv[:len(k)] == k {
		return kv[len(k):], true
	}
	return "", false
}
