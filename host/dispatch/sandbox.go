package dispatch

import (
	"fmt"

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
	inv.Env = t.Sandbox.ToolchainEnv(inv.Env)
	pol, err := t.Sandbox.CommandPolicy(mode, t.Workspace.Root, inv.Env)
	if err != nil {
		return err
	}
	enc, err := pol.Encode()
	if err != nil {
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
