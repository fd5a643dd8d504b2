package dispatch

import (
	"errors"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/shared/sandbox"
)

// NetworkArg is the boolean argument by which a command tool's call (the
// terminal's `network: true`) asks for outbound network access. Without
// it, sandboxed commands run offline.
const NetworkArg = "network"

// NetworkReason begins what the approval card says about such a call;
// networkReason adds exactly what the command will reach: the command
// runs in a network namespace of its own whose only way out is the
// host's egress proxy, which applies the URL policy (host/egress).
const NetworkReason = "network access"

func (t *Turn) networkReason() string {
	return NetworkReason + " " + t.Sandbox.Egress.Reach()
}

// networkRequested reports whether a command call asks for the network.
func networkRequested(p *prepared) bool {
	if p.command == nil {
		return false
	}
	b, _ := p.args[NetworkArg].(bool)
	return b
}

// raiseForNetwork runs before approval: a call asking for the network
// asks the operator whatever the guard says, and its card says so.
func (t *Turn) raiseForNetwork(p *prepared) {
	if networkRequested(p) {
		p.assess.Raise(catalog.RiskHigh, catalog.ApprovalPrompt, t.networkReason())
	}
}

// networkMode is the mode of an approved call that asked for the
// network: the session's write mode plus outbound network. Nobody asked
// (via auto) leaves it offline; a read-only session has no network to
// give, and the call fails rather than run without what it asked for.
func networkMode(m sandbox.Mode, via string) (sandbox.Mode, error) {
	if via == approval.ViaAuto {
		return m, nil
	}
	switch m {
	case sandbox.ReadOnly:
		return "", errors.New("network access refused: the session's sandbox mode is read-only, which has no network")
	case sandbox.WorkspaceWrite:
		return sandbox.Network, nil
	}
	return m, nil
}

// approvalFingerprint keeps a network call apart from the same command
// offline: a session approval of the one never covers the other.
func approvalFingerprint(p *prepared) string {
	if networkRequested(p) {
		return p.assess.Fingerprint + "+network"
	}
	return evolveFingerprint(p, p.assess.Fingerprint)
}
