package approval

import "context"

// askAlways puts a call of an AlwaysAsk tool to the provider, whatever
// else would have approved it: allow once is the only allow (an answer
// "for the session" counts once and none is offered), and a run no one
// attends refuses it. line replaces the card's sandbox line.
func (r *Resolver) askAlways(ctx context.Context, req Request, line string) (Outcome, error) {
	if r.Unattended != nil {
		return Outcome{Via: ViaLease, Reason: "every call of " + req.Tool + " is the operator's to answer, and no one attends a scheduled run"}, nil
	}
	req.Sandbox = line
	req.OperatorOnly = true
	req.SessionAllowable = false
	req.SessionDeniable = false
	return r.ask(ctx, req, false, "every call of "+req.Tool+" is asked: it runs outside Demiurge's sandbox, and no rule or session allow approves it")
}
