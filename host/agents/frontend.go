package agents

import (
	"context"
	"fmt"
	"strings"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/turn"
)

// childFrontEnd is what a child's turn shows to and asks of: its approval
// prompts go to the root session's front end (the parent turn's approver),
// naming the child; with no one there they are denied, and the child's
// tool result says so. Clarify has no one to ask.
type childFrontEnd struct {
	asker approval.Provider
	// parent shows the child's events, tagged, when it takes them.
	parent             turn.ChildShower
	agent, parentAgent string
}

// Show tags the child's own event and passes it to the parent's front
// end, if that one shows children's events.
func (f childFrontEnd) Show(ev turn.Event) {
	if f.parent == nil {
		return
	}
	ev.Agent, ev.ParentAgent = f.agent, f.parentAgent
	f.parent.ShowChild(ev)
}

// ShowChild passes a grandchild's event (tagged already) up the tree.
func (f childFrontEnd) ShowChild(ev turn.Event) {
	if f.parent != nil {
		f.parent.ShowChild(ev)
	}
}

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
	// A grandchild's prompt passes its parent's asker too: the deepest
	// child, which named itself first, is the one asking.
	if len(req.Reasons) == 0 || !strings.HasPrefix(req.Reasons[0], askedByChild) {
		who := fmt.Sprintf("%s %s (depth %d), goal: %s", askedByChild, a.agent, a.depth, bounded(oneLine(a.goal), 160))
		req.Reasons = append([]string{who}, req.Reasons...)
	}
	return a.inner.Ask(ctx, req)
}

const askedByChild = "asked by child agent"

func frontEndFor(req Request, agent, parentAgent string, depth int) childFrontEnd {
	f := childFrontEnd{agent: agent, parentAgent: parentAgent}
	f.parent, _ = req.FrontEnd.(turn.ChildShower)
	switch req.Asker.(type) {
	case nil:
		f.asker = approval.DenyAll{}
	case approval.DenyAll:
		f.asker = req.Asker
	default:
		goal := req.Goal
		if req.Card != "" {
			goal = req.Card
		}
		f.asker = childAsker{inner: req.Asker, agent: agent, goal: goal, depth: depth}
	}
	return f
}
