package dispatch

import (
	"context"
	"errors"
	"time"

	"demiurge.dev/host/approval"
)

// The decisions Verdict reports.
const (
	DecisionAllow  = "allow"  // the call would run unasked
	DecisionPrompt = "prompt" // the approval provider would be asked
	DecisionDeny   = "deny"   // refused, with no one asked
)

// PolicyVerdict is what the call path decides on a call it does not run.
type PolicyVerdict struct {
	Decision string
	// Reason says which step decided, as the refusal or the rule names it.
	Reason string
}

// Verdict runs the steps of the call path that have no effect on call —
// schema, capability, assessment, the command plan, the sandbox
// and network raises, then the approval step — and reports the decision
// without running anything: no precheck, no adapter. The approval step
// uses the turn's rules with no session allows and a provider that only
// notes it was asked and refuses, so "prompt" means the operator would be
// asked. It is how a core's policy examples are checked (toolhost.Gate).
// A call the path cannot resolve (an unknown tool, arguments its schema
// refuses) is an error.
func (t *Turn) Verdict(ctx context.Context, call ToolCall) (PolicyVerdict, error) {
	// Not counted as a call of the turn; a deferred tool is judged as if
	// active, since its policy is the same.
	entry, ok := t.Catalog.Lookup(call.Name)
	if !ok {
		msg := unknownToolMessage(call.Name, t.Catalog)
		for _, u := range t.Catalog.Unavailable() {
			if u.Tool == call.Name { // left out for a capability not granted: refused
				return PolicyVerdict{Decision: DecisionDeny, Reason: msg}, nil
			}
		}
		return PolicyVerdict{}, errors.New(msg)
	}
	p := &prepared{call: call, start: time.Now()}
	t.prepareEntry(p, entry)
	switch p.status {
	case "":
	case StatusCapabilityDenied:
		return PolicyVerdict{Decision: DecisionDeny, Reason: p.message}, nil
	default:
		return PolicyVerdict{}, errors.New(p.message)
	}
	t.raiseForSandbox(p)
	t.raiseForNetwork(p)
	asked := &askedProvider{}
	r := &approval.Resolver{Provider: asked, Rules: t.approvals().Rules, Now: t.approvals().Now, OperatorFile: t.approvals().OperatorFile}
	out, err := r.Resolve(ctx, t.approvalRequest(p))
	if err != nil {
		return PolicyVerdict{}, err
	}
	switch {
	case out.Allowed:
		return PolicyVerdict{Decision: DecisionAllow, Reason: out.Reason}, nil
	case asked.asked:
		return PolicyVerdict{Decision: DecisionPrompt, Reason: "the operator would be asked"}, nil
	}
	return PolicyVerdict{Decision: DecisionDeny, Reason: deniedMessage(call.Name, out)}, nil
}

// askedProvider notes that it was asked and refuses.
type askedProvider struct{ asked bool }

func (*askedProvider) Name() string { return "policy example" }

func (a *askedProvider) Ask(context.Context, approval.Request) (approval.Answer, error) {
	a.asked = true
	return approval.Deny, nil
}
