package approval

import (
	"context"
	"fmt"
)

// Answer is what a provider decided. The zero value is Deny, so that an
// answer nobody set refuses.
type Answer int

const (
	Deny Answer = iota
	AllowOnce
	AllowSession
	// DenySession refuses this call and asks the caller not to ask again
	// in this session; only a request that is SessionDeniable offers it,
	// and the caller keeps the refusal (an MCP server's connect).
	DenySession
)

func (a Answer) String() string {
	switch a {
	case Deny:
		return "deny"
	case AllowOnce:
		return "allow once"
	case AllowSession:
		return "allow for session"
	case DenySession:
		return "deny for session"
	}
	return fmt.Sprintf("answer(%d)", int(a))
}

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
