package turn

import (
	"context"

	"demiurge.dev/host/runtime"
)

// submit stores msgs like append, without waiting for their commit: a
// step's messages ride along with the durable commit of its call's audit
// event (or, with none, the next durable write), so that a read_file step
// costs one commit, not three. Only messages a later durable write of the
// same turn follows are submitted: the reply that asks for calls (their
// audit events come next) and the calls' results (the next step's audit
// commit, or the turn's end, come next). They ride with no time bound
// (runtime.RideMessages): with a timed wait, a model step longer than it
// gave the results a commit of their own, two more syncs a step.
func (t *turnRun) submit(ctx context.Context, msgs ...runtime.MessageRecord) error {
	return t.store(ctx, t.loop.Store.RideMessages, msgs)
}
