package approval

import (
	"context"

	"demiurge.dev/host/approval/prompt"
)

// Answer is what a provider decided (prompt.Answer). The zero value is
// Deny, so that an answer nobody set refuses.
type Answer = prompt.Answer

const (
	Deny         = prompt.Deny
	AllowOnce    = prompt.AllowOnce
	AllowSession = prompt.AllowSession
	// DenySession refuses this call and asks the caller not to ask again
	// in this session; only a request that is SessionDeniable offers it,
	// and the caller keeps the refusal (an MCP server's connect).
	DenySession = prompt.DenySession
)

// Provider asks someone to decide on a call. An error means nobody
// decided; Resolve then refuses the call.
type Provider interface {
	Name() string
	Ask(ctx context.Context, req Request) (Answer, error)
}

// DenyAll refuses everything it is asked: the provider when no one can
// answer (stdin is not a terminal, a background task, a scheduled run).
type DenyAll struct {
	// Approve, when set, says how the operator approves a call where this
	// provider denies (an MCP client without elicitation: a flag on the
	// serve command line), with %s for the rule's TOOL[:PATH]; by default
	// "run in a terminal or pass --approve allow:%s".
	Approve string
}

func (DenyAll) Name() string { return "deny-all" }

func (DenyAll) Ask(context.Context, Request) (Answer, error) { return Deny, nil }
