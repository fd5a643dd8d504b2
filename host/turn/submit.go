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
// audit events come next) and the calls' results (the next step's reply,
// or the turn's end, come next).
func (t *turnRun) submit(ctx context.Context, msgs ...runtime.MessageRecord) error {
	return t.store(ctx, t.loop.Store.SubmitMessages, msgs)
}
