package dispatch

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/shared/sandbox"
)

// raiseForSandbox runs before approval: a command the guard would let run
// unasked must ask instead when its read-only sandbox cannot be enforced
// here (the sandbox never lowers an approval; the guard still decides).
func (t *Turn) raiseForSandbox(p *prepared) {
	if p.command == nil || t.Sandbox.Mode == "" {
		return
	}
	if miss := t.Sandbox.Unenforceable(t.Sandbox.ModeFor(true)); miss != "" {
		p.assess.Raise(catalog.RiskHigh, catalog.ApprovalPrompt, "the OS sandbox cannot be enforced here: the kernel lacks "+miss)
	}
}

// applySandbox runs once the command is approved and its environment is
// set: it decides the mode (read-only when nobody was asked, else the
// session's) and puts the policy into the invocation. With require set, a
// mode the kernel cannot enforce fails the call; without it an asked-about
// command runs unconfined and its result says "off".
func (t *Turn) applySandbox(p *prepared, via string, inv *Invocation) error {
	if p.command == nil || t.Sandbox.Mode == "" {
		return nil
	}
	mode := t.Sandbox.ModeFor(via == approval.ViaAuto)
	if networkRequested(p) {
		m, err := networkMode(mode, via)
		if err != nil {
			return err
		}
		mode = m
	}
	if miss := t.Sandbox.Unenforceable(mode); miss != "" {
		if t.Sandbox.Require {
			return fmt.Errorf("the core requires the OS sandbox (sandbox.require) and mode %s cannot be enforced: the kernel lacks %s", mode, miss)
		}
		mode = sandbox.Off
	}
	p.command.sandbox = string(mode)
	if mode == sandbox.Off {
		return nil
	}
	if err := sandboxHome(inv, t.Workspace.Root); err != nil {
		return err
	}
	inv.Env = t.Sandbox.ToolchainEnv(inv.Env)
	pol, err := t.Sandbox.CommandPolicy(mode, t.Workspace.Root, inv.Env)
	if err != nil {
		return err
	}
	if mode == sandbox.Network {
		px, err := t.startEgress(p)
		if err != nil {
			return err
		}
		p.command.egress = px
		pol.Proxy = px.Socket()
	}
	enc, err := pol.Encode()
	if err != nil {
		p.command.closeEgress()
		return err
	}
	inv.SandboxPolicy = enc
	return nil
}

// enforcedMode is the sandbox mode an invocation's command starts under:
// the policy's (the helper refuses to start rather than enforce less), or
// off when the host sends none.
func enforcedMode(inv Invocation) string {
	if inv.SandboxPolicy == "" {
		return string(sandbox.Off)
	}
	p, err := sandbox.DecodePolicy(inv.SandboxPolicy)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	return string(p.Mode)
}

// sandboxHome gives a sandboxed command a HOME of its workspace's own,
// <runtime>/sandbox-home/<workspace key>, beside the runtime home that
// unconfined commands (--sandbox off) use. A command's HOME is where
// toolchains keep their writable caches (go's module and build caches,
// cargo's registry, npm's cache, pip's): a cache a sandboxed command
// wrote must never be one that a later unconfined command, or a command
// in another workspace, reads and runs code from. The operator's own
// caches under their home stay read-only (ToolchainPaths) or unreadable.
func sandboxHome(inv *Invocation, workspace string) error {
	home := envValue(inv.Env, "HOME")
	if home == "" || !filepath.IsAbs(home) {
		return errors.New("sandbox: the command has no absolute HOME to derive its sandbox home from")
	}
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	dir := filepath.Join(filepath.Dir(home), "sandbox-home", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("sandbox: the sandbox home: %w", err)
	}
	env := make([]string, 0, len(inv.Env))
	for _, kv := range inv.Env {
		if !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	inv.Env = append(env, "HOME="+dir)
	return nil
}
