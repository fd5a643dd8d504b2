package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// messageSeqs hands out message sequence numbers before their write is
// committed, so that a submitted message (SubmitMessages) has its Seq at
// once. One Store owns its file (bbolt's lock), so the numbers a Store
// handed out are all there are; a session's last number is read from the
// file the first time and after a failed commit.
type messageSeqs struct {
	mu   sync.Mutex
	last map[string]uint64
}

var seqsByStore sync.Map // *Store → *messageSeqs

func (s *Store) seqs() *messageSeqs {
	v, _ := seqsByStore.LoadOrStore(s, &messageSeqs{last: map[string]uint64{}})
	return v.(*messageSeqs)
}

// reserve returns the first of n new sequence numbers of session.
func (s *Store) reserve(session string, n int) (uint64, error) {
	q := s.seqs()
	q.mu.Lock()
	defer q.mu.Unlock()
	last, ok := q.last[session]
	if !ok {
		err := s.view(func(tx *bolt.Tx) error {
			last = lastSeq(tx.Bucket([]byte(BucketMessages)), session)
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	q.last[session] = last + uint64(n)
	return last + 1, nil
}

// forget drops session's cached number after a failed commit: the next
// reservation reads the file again.
func (s *Store) forget(session string) {
	q := s.seqs()
	q.mu.Lock()
	delete(q.last, session)
	q.mu.Unlock()
}

// SubmitMessages stores msgs as the next messages of session like
// AppendMessages, assigning their Seq at once, but returns without waiting
// for the commit: they ride along with the store's next commit (an audit
// event's Append, another AppendMessages) or are committed within
// submitDelay. Order is kept: whatever is submitted is committed before or
// with everything appended after it. A crash may lose what was submitted
// in the last submitDelay. The agent loop rides its messages instead
// (RideMessages).
func (s *Store) SubmitMessages(ctx context.Context, session string, msgs []MessageRecord) ([]MessageRecord, error) {
	out, req, err := s.messageWrite(session, msgs)
	if err != nil || req == nil {
		return out, err
	}
	if err := s.submit(ctx, req); err != nil {
		s.forget(session)
		return nil, err
	}
	return out, nil
}

// RideMessages stores msgs like SubmitMessages but sets them no time
// bound: they are written with the store's next commit, whenever it comes
// (an audit event's Append, an AppendMessages, a timed Submit's commit,
// Close). The agent loop rides a step's reply and its calls' results, so
// that a step costs one commit (its audit event's) however long the model
// takes; the turn ends with an AppendMessages, which carries whatever
// still rides. A crash loses what rides, never an audit event; a lost
// result is answered in the replay (turn.replayOf).
func (s *Store) RideMessages(ctx context.Context, session string, msgs []MessageRecord) ([]MessageRecord, error) {
	out, req, err := s.messageWrite(session, msgs)
	if err != nil || req == nil {
		return out, err
	}
	if err := s.submitReq(ctx, req, false); err != nil {
		s.forget(session)
		return nil, err
	}
	return out, nil
}

// messageWrite reserves the messages' numbers and prepares their write;
// the observers are told once it is committed (in commit order).
func (s *Store) messageWrite(session string, msgs []MessageRecord) ([]MessageRecord, *appendReq, error) {
	if session == "" {
		return nil, nil, errors.New("messages need a session")
	}
	if len(msgs) == 0 {
		return nil, nil, nil
	}
	first, err := s.reserve(session, len(msgs))
	if err != nil {
		return nil, nil, err
	}
	out := make([]MessageRecord, len(msgs))
	keys := make([][]byte, len(msgs))
	values := make([][]byte, len(msgs))
	now := time.Now().UTC()
	for i, m := range msgs {
		m.Session, m.Seq = session, first+uint64(i)
		if m.Created.IsZero() {
			m.Created = now
		}
		v, err := json.Marshal(m)
		if err != nil {
			s.forget(session)
			return nil, nil, fmt.Errorf("encode message %d of %s: %w", m.Seq, session, err)
		}
		out[i], keys[i], values[i] = m, messageKey(session, m.Seq), v
	}
	req := &appendReq{done: make(chan struct{})}
	req.apply = func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketMessages))
		for i := range keys {
			if err := b.Put(keys[i], values[i]); err != nil {
				return err
			}
		}
		return nil
	}
	req.after = func(err error) {
		if err != nil {
			s.forget(session)
			return
		}
		for _, fn := range s.messageObservers() {
			fn(out)
		}
	}
	return out, req, nil
}
