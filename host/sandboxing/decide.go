package sandboxing

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/shared/pathrules"
	"demiurge.dev/shared/sandbox"
)

// Config is the sandbox of one session's commands.
type Config struct {
	// Mode is the mode approved commands run in (see ResolveMode); empty
	// means no sandbox was configured and commands run as before.
	Mode sandbox.Mode
	// Require fails every command when the kernel cannot enforce Mode.
	Require bool
	// Explicit says the operator (--sandbox) or the core (sandbox.mode)
	// chose Mode; false means it is the default, which an authored tool
	// that declares network.fetch may exceed up to network.
	Explicit bool
	// Helper is the re-exec helper's path ("" when it is missing).
	Helper string
	// Protected are absolute paths of the agent core that stay read-only.
	Protected []string
	// Limits are the operator's process and TMPDIR limits.
	Limits Limits
	// HostOwned are the host's binaries, helper, plugins, packages, state
	// and configuration: read-only to a sandboxed command wherever they
	// lie (see HostOwnedPaths).
	HostOwned []string
	// HostPrivate is the state directory: inside the workspace a command
	// sees none of it but its own paths there (see HostPrivatePaths).
	HostPrivate []string
	// Toolchains are read and executable by every command (see
	// ToolchainPaths), beside the command's own PATH entries.
	Toolchains []string
	// Egress is what network-mode commands reach through the host's
	// egress proxy (see egress.go).
	Egress Egress
}

// ResolveMode combines the core's `sandbox.mode` and the operator's
// --sandbox (either may be empty): the default is workspace-write; each
// may tighten; off only from the operator, and a core cannot loosen what
// the operator set.
func ResolveMode(core, operator string) (sandbox.Mode, error) {
	mode := sandbox.WorkspaceWrite
	if operator != "" {
		m, err := sandbox.ParseMode(operator)
		if err != nil {
			return "", fmt.Errorf("--sandbox: %w", err)
		}
		mode = m
	}
	if core != "" {
		m, err := sandbox.ParseMode(core)
		if err != nil {
			return "", fmt.Errorf("agent.yaml sandbox.mode: %w", err)
		}
		if m == sandbox.Off {
			return "", errors.New("agent.yaml sandbox.mode: off is the operator's choice (--sandbox off), not a core's")
		}
		mode = sandbox.Tighter(mode, m)
	}
	return mode, nil
}

// ModeFor is the mode of one command: one the guard lets run unasked
// runs read-only (and offline) whatever the configured mode, so that a
// misjudged command can neither write nor reach the network.
func (c Config) ModeFor(unasked bool) sandbox.Mode {
	if unasked {
		return sandbox.Tighter(c.Mode, sandbox.ReadOnly)
	}
	return c.Mode
}

// Unenforceable says what the kernel lacks for mode m ("" when nothing).
func (c Config) Unenforceable(m sandbox.Mode) string {
	if m == sandbox.Off {
		return ""
	}
	if c.Helper == "" {
		return "the sandbox helper " + HelperName + " is missing"
	}
	return strings.Join(sandbox.Detect(c.Helper).Missing(m), ", ")
}

// CommandPolicy is the policy for one command in workspace ws whose
// environment is env (its HOME is the runtime home the host made): the
// private tmp dir lives in that home, which stays writable; the command's
// PATH directories are readable; the core's paths, .git/config,
// .git/hooks, what the repository's git configuration includes or names
// as its hooks directory, and the MCP and ACP clients' configuration are
// protected.
func (c Config) CommandPolicy(m sandbox.Mode, ws string, env []string) (sandbox.Policy, error) {
	home := lookupEnv(env, "HOME")
	if home == "" || !filepath.IsAbs(home) {
		return sandbox.Policy{}, errors.New("sandbox: the command has no absolute HOME for its private tmp dir")
	}
	tmp := filepath.Join(home, "tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return sandbox.Policy{}, fmt.Errorf("sandbox: private tmp dir: %w", err)
	}
	p := sandbox.Policy{Mode: m, Workspace: ws, TmpDir: tmp, Writable: []string{home}, Helper: c.Helper}
	c.Limits.Apply(&p)
	p.HostOwned, p.HostPrivate = c.HostOwned, c.HostPrivate
	p.ReadOnly = append(p.ReadOnly, c.Toolchains...)
	p.Protected = append(p.Protected, c.Protected...)
	held, watch := WorkspaceProtected(ws)
	p.Protected = append(p.Protected, held...)
	p.Watched = watch
	for _, d := range filepath.SplitList(lookupEnv(env, "PATH")) {
		if filepath.IsAbs(d) && !pathrules.IsSensitive(d) {
			p.ReadOnly = append(p.ReadOnly, filepath.Clean(d))
		}
	}
	return p, nil
}

func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}
