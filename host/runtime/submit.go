package runtime

import (
	"context"
	"time"
)

// submitDelay and submitGroup bound how long, and for how many events, a
// Submit'ed event waits for company when no Append comes to take it along:
// events nobody waits for cause at most ten commits a second, so their
// fsyncs do not compete with the calls that produce them. A variable so
// that tests can make the wait unbounded.
var submitDelay = 100 * time.Millisecond

const submitGroup = 256

// Submit hands ev to the writer and returns without waiting for the
// commit; done, if not nil, is called with the outcome once the event is on
// disk. Callers that must not return before the event is durable use
// Append; Submit is for measuring the call path without the fsync, and for
// events whose loss on a crash is acceptable.
//
// Nobody waits for a submitted event, so it is not committed on its own:
// it rides along with the next Append's commit, or is committed once
// submitGroup events are waiting or submitDelay has passed. Handing it over
// is a lock and an append to a list; only the first event of a group wakes
// the writer. ctx bounds the wait when the list is full.
func (s *Store) Submit(ctx context.Context, ev Event, done func(seq uint64, err error)) error {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	req, err := encodePooled(ev) // event_pool.go
	if err != nil {
		return err
	}
	if err := s.submit(ctx, req); err != nil {
		return err
	}
	if done != nil {
		go func() { <-req.done; done(req.seq, req.err) }()
	}
	return nil
}

func (s *Store) submit(ctx context.Context, req *appendReq) error {
	return s.submitReq(ctx, req, true)
}

// submitReq adds req to the submitted list. A timed req starts the
// writer's submitDelay wait when it is the first timed one waiting; an
// untimed one (a ride) only waits for the next commit, and wakes the
// writer only when the list reaches submitGroup. As with enqueue, the
// writer gives req's pooled bytes back after its commit, and a req that
// was never queued gives them back at once.
func (s *Store) submitReq(ctx context.Context, req *appendReq, timed bool) error {
	err := s.addSubmitted(ctx, req, timed)
	if err != nil {
		req.recycle() // never queued
	}
	return err
}

func (s *Store) addSubmitted(ctx context.Context, req *appendReq, timed bool) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	s.subMu.Lock()
	if len(s.submitted) >= maxGroup {
		// The writer has been told to commit (at submitGroup) and has not
		// caught up: wait in the queue like an Append, which is committed
		// at once.
		s.subMu.Unlock()
		return s.enqueueLocked(ctx, req)
	}
	s.submitted = append(s.submitted, req)
	n := len(s.submitted)
	first := false
	if timed {
		s.timed++
		first = s.timed == 1
	}
	s.subMu.Unlock()
	if first || n == submitGroup {
		select {
		case s.submitWake <- struct{}{}:
		default: // a signal is already pending
		}
	}
	return nil
}

func (s *Store) pendingSubmits() int {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	return len(s.submitted)
}

// takeSubmitted moves the waiting submitted events to group.
func (s *Store) takeSubmitted(group []*appendReq) []*appendReq {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	group = append(group, s.submitted...)
	clear(s.submitted)
	s.submitted = s.submitted[:0]
	s.timed = 0
	return group
}
