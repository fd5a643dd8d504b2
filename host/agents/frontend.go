package agents

import (
	"context"
	"fmt"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/turn"
)

// childFrontEnd is what a child's turn shows to and asks of: its approval
// prompts go to the root session's front end (the parent turn's approver),
// naming the child; with no one there they are denied, and the child's
// tool result says so. Clarify has no one to ask.
type childFrontEnd struct {
	asker approval.Provider
}

func (childFrontEnd) Show(turn.Event) {}

func (f childFrontEnd) Approver() approval.Provider { return f.asker }

func (childFrontEnd) Clarify(context.Context, string, []string) (string, bool, error) {
	return "", false, nil
}

// childAsker names the child in every prompt it passes on. The prompt's
// authority is the child's own session, so an "allow for session" given
// here binds that child only: not its parent, not a sibling.
type childAsker struct {
	inner       approval.Provider
	agent, goal string
	depth       int
}

func (a childAsker) Name() string { return a.inner.Name() }

func (a childAsker) Ask(ctx context.Context, req approval.Request) (approval.Answer, error) {
	who := fmt.Sprintf("asked by child agent %s (depth %d), goal: %s", a.agent, a.depth, bounded(oneLine(a.goal), 160))
	req.Reasons = append([]string{who}, req.Reasons...)
	return a.inner.Ask(ctx, req)
}

func frontEndFor(asker approval.Provider, agent, goal string, depth int) childFrontEnd {
	if asker == nil {
		return childFrontEnd{asker: approval.DenyAll{}}
	}
	if _, deny := asker.(approval.DenyAll); deny {
		return childFrontEnd{asker: asker}
	}
	return childFrontEnd{asker: childAsker{inner: asker, agent: agent, goal: goal, depth: depth}}
}
