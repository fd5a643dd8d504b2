package runtime

import (
	"context"
	"time"
)

// Submit hands ev to the writer and returns without waiting for the
// commit; done, if not nil, is called with the outcome once the event is on
// disk. Callers that must not return before the event is durable use
// Append; Submit is for measuring the call path without the fsync, and for
// events whose loss on a crash is acceptable.
func (s *Store) Submit(ctx context.Context, ev Event, done func(seq uint64, err error)) error {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	value, err := encodeEvent(ev)
	if err != nil {
		return err
	}
	req := &appendReq{value: value, done: make(chan struct{})}
	if err := s.enqueue(ctx, req); err != nil {
		return err
	}
	if done != nil {
		go func() { <-req.done; done(req.seq, req.err) }()
	}
	return nil
}
