package dispatch

import (
	"demiurge.dev/host/approval"
	"demiurge.dev/shared/sandbox"
)

// sandboxCardLine is what an approval card says of a command's sandbox:
// the mode it runs in once the operator approves it (applySandbox decides
// the same way after the answer) and what that means for the network, so
// that an operator is not surprised by a build that cannot download.
// Empty for a call that starts no command.
func (t *Turn) sandboxCardLine(p *prepared) string {
	if p.command == nil {
		return ""
	}
	if t.Sandbox.Mode == "" {
		return "none configured: runs unconfined, with your file access and the network"
	}
	mode := t.Sandbox.ModeFor(false)
	if networkRequested(p) {
		m, err := networkMode(mode, approval.ViaPrompt)
		if err != nil {
			return string(mode) + ": " + err.Error() + "; the call will fail"
		}
		mode = m
	}
	if miss := t.Sandbox.Unenforceable(mode); miss != "" {
		if t.Sandbox.Require {
			return string(mode) + " cannot be enforced here (the kernel lacks " + miss + "): the call will fail (sandbox.require)"
		}
		return string(mode) + " cannot be enforced here (the kernel lacks " + miss + "): runs UNCONFINED, with your file access and the network"
	}
	switch mode {
	case sandbox.ReadOnly:
		return "read-only, offline: it cannot write files, and network requests will fail"
	case sandbox.WorkspaceWrite:
		return "workspace-write, offline: it writes only in the workspace, and network requests will fail (ask with \"network\": true)"
	case sandbox.Network:
		return "network: it writes only in the workspace, and it CAN reach the network " + t.Sandbox.Egress.Reach()
	case sandbox.Off:
		return "off (the operator's --sandbox off): runs unconfined, with your file access and the network"
	}
	return string(mode)
}
