package frontview

import (
	"fmt"
	"io"

	"demiurge.dev/host/runtime"
)

// ExitWaitTimedOut is `tasks wait --exit-code` when the task is still
// running at the timeout, as timeout(1) reports it.
const ExitWaitTimedOut = 124

// TaskExitStatus is the status `tasks wait --exit-code` exits with: the
// task's return code, 124 when the wait timed out, 1 when it ended with
// none (cancelled before its process started, or lost).
func TaskExitStatus(t runtime.Task, timedOut bool) int {
	switch {
	case timedOut:
		return ExitWaitTimedOut
	case t.ReturnCode == nil:
		return 1
	case *t.ReturnCode == 0:
		return 0
	}
	return min(max(*t.ReturnCode, 1), 255)
}

// Cancelled is `tasks cancel`'s answer: the task after the cancel, and,
// when it had ended before (nothing was cancelled), a line that says so
// rather than look like it was.
func Cancelled(w io.Writer, id string, before, after runtime.Task, asJSON bool) error {
	if before.State.Terminal() && !asJSON {
		fmt.Fprintf(w, "task %s had already ended (%s); nothing to cancel\n", id, before.State)
	}
	return Task(w, after, nil, asJSON)
}
