package runtime

import (
	"context"
	"fmt"
	goruntime "runtime"
	"time"

	bolt "go.etcd.io/bbolt"
)

const (
	queueSize = 1024
	// maxGroup bounds one transaction so a burst cannot build an
	// arbitrarily large commit.
	maxGroup = 4096
)

type appendReq struct {
	value []byte
	// pooled, when set, holds value's storage for the pool once the
	// transaction has ended (event_pool.go).
	pooled *[]byte
	// apply, when set, is a write of another bucket (tasks, task_logs)
	// that rides in the same group commit instead of an event.
	apply func(tx *bolt.Tx) error
	// after, when set, is told the commit's outcome before done closes,
	// in commit order, on the writer's goroutine (keep it short).
	after func(err error)
	seq   uint64
	err   error
	done  chan struct{}
}

// Append writes ev to the event log and returns its sequence number once the
// transaction holding it is on disk (fsync'd). Concurrent callers share
// commits: one writer commits everything queued in one transaction, so a
// sequential caller pays one commit per call and N concurrent callers about
// one commit per N calls.
//
// ctx bounds only the wait for a place in the queue. Once queued, the event
// is committed and Append waits for that, so a caller never walks away
// unsure whether its event landed. A zero Time is set to now.
func (s *Store) Append(ctx context.Context, ev Event) (uint64, error) {
	if ev.Time.IsZero() {
		ev.Time = time.Now().UTC()
	}
	req, err := encodePooled(ev) // event_pool.go
	if err != nil {
		return 0, err
	}
	if err := s.enqueue(ctx, req); err != nil {
		return 0, err
	}
	<-req.done
	return req.seq, req.err
}

// enqueue hands req to the writer, which gives its pooled bytes back
// once their transaction has ended. A req it could not queue gives them
// back at once: nothing else holds them.
func (s *Store) enqueue(ctx context.Context, req *appendReq) error {
	err := s.enqueueOpen(ctx, req)
	if err != nil {
		req.recycle() // never queued
	}
	return err
}

func (s *Store) enqueueOpen(ctx context.Context, req *appendReq) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	return s.enqueueLocked(ctx, req)
}

// enqueueLocked waits for a place in the queue; the caller holds mu shared.
func (s *Store) enqueueLocked(ctx context.Context, req *appendReq) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("append event: %w", err)
	}
	// Room in the queue: no need to watch ctx (a context may start its
	// timer only when asked for Done; dispatch's audit context does).
	select {
	case s.queue <- req:
		return nil
	default:
	}
	select {
	case s.queue <- req:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("append event: %w", ctx.Err())
	}
}

// writer is the single goroutine that commits. Whatever the queue holds is
// committed at once, since its callers wait; Submit'ed events wait for
// company (see Submit) and ride along with the next commit.
func (s *Store) writer() {
	defer close(s.done)
	queued := make([]*appendReq, 0, 64)
	group := make([]*appendReq, 0, 64)
	hold := time.NewTimer(submitDelay)
	hold.Stop()
	holding := false
	for {
		select {
		case req := <-s.queue:
			queued = s.gather(append(queued, req))
		case <-s.submitWake:
			n := s.pendingSubmits()
			if n == 0 {
				continue // taken by a commit since the signal was sent
			}
			if n < submitGroup {
				if !holding {
					hold.Reset(submitDelay)
					holding = true
				}
				continue
			}
		case <-hold.C:
			holding = false
		case <-s.stop:
			// Close has made sure nothing new arrives; commit what is left.
			hold.Stop()
			for {
				group = append(s.takeSubmitted(group[:0]), s.gather(queued[:0])...)
				if len(group) == 0 {
					return
				}
				s.commit(group)
			}
		}
		if holding {
			hold.Stop()
			holding = false
		}
		// Submitted events go first: a caller that submits and then
		// appends sees them in that order.
		group = append(s.takeSubmitted(group[:0]), queued...)
		queued = queued[:0]
		if len(group) == 0 {
			continue
		}
		s.commit(group)
		if len(group) > 1 {
			// The callers just answered are likely to append again
			// at once; let them run so the next commit carries them
			// too, instead of starting it with whoever came first.
			goruntime.Gosched()
		}
		if len(s.queue) == 0 {
			s.keepTail() // tail.go: never while a caller waits
		}
	}
}

// gather adds whatever is queued right now, without waiting for more.
func (s *Store) gather(group []*appendReq) []*appendReq {
	for len(group) < maxGroup {
		select {
		case req := <-s.queue:
			group = append(group, req)
		default:
			return group
		}
	}
	return group
}

// commit writes group in one transaction and answers every caller.
func (s *Store) commit(group []*appendReq) {
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketEvents))
		// Event keys only grow (NextSequence): pages filled to the brim
		// are never split again, so a commit writes about half the pages
		// bbolt's default of half-full leaves give.
		b.FillPercent = 1.0
		for _, req := range group {
			if req.apply != nil {
				if err := req.apply(tx); err != nil {
					return err
				}
				continue
			}
			seq, err := b.NextSequence()
			if err != nil {
				return err
			}
			if err := b.Put(seqKey(seq), req.value); err != nil {
				return err
			}
			req.seq = seq
		}
		return nil
	})
	s.commits.Add(1)
	if err != nil {
		err = fmt.Errorf("commit %d event(s) to state store %s: %w", len(group), s.path, err)
	}
	for _, req := range group {
		req.recycle()
		if err != nil {
			req.seq, req.err = 0, err
		}
		if req.after != nil {
			req.after(err)
		}
		close(req.done)
	}
}
