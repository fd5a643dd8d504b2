package turn

import (
	"fmt"
	"time"

	"demiurge.dev/host/providers"
)

// EventRetry announces that a failed model step is tried again after a
// wait (Text says why and how long, WaitMS the wait); a notice with the
// same text follows, for front ends that show only notices.
const EventRetry EventKind = "retry"

// retrying shows a provider's retry: the wait is long enough (up to
// minutes on a 429 with Retry-After) that a silent pause looks like a hang.
func (t *turnRun) retrying(r providers.Retry) {
	text := fmt.Sprintf("%s; try %d of %d in %s", r.Reason, r.Failed+1, r.Of, roundWait(r.Wait))
	t.show(Event{Type: EventRetry, Text: text, WaitMS: r.Wait.Milliseconds()})
	t.notice("%s", text)
}

func roundWait(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(10 * time.Millisecond)
}
