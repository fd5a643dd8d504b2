package runtime

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// MessageRecord is one stored message of a session's conversation: the
// model view of what was said, in order. Nothing in it is a secret: tool
// results are stored as their model views, which are redacted.
type MessageRecord struct {
	Session string `json:"session"`
	// Seq orders a session's messages from 1; AppendMessages assigns it.
	Seq  uint64 `json:"seq"`
	Turn string `json:"turn,omitempty"`
	// Role is user, assistant or tool (providers.Role).
	Role        string          `json:"role"`
	Text        string          `json:"text,omitempty"`
	ToolCalls   json.RawMessage `json:"tool_calls,omitempty"`
	ToolResults json.RawMessage `json:"tool_results,omitempty"`
	// Reasoning is an assistant message's opaque reasoning state
	// (providers.Reasoning items), replayed to the provider that wrote it.
	Reasoning json.RawMessage `json:"reasoning,omitempty"`
	// Summary marks a message the model wrote to stand for older
	// messages (compaction); Covers is the last Seq it stands for. The
	// originals stay in the store.
	Summary bool   `json:"summary,omitempty"`
	Covers  uint64 `json:"covers,omitempty"`
	// Usage is the provider's token count of the step that wrote an
	// assistant message (the turn loop's context accounting).
	Usage *MessageUsage `json:"usage,omitempty"`
	// Status marks the message that closes a turn which did not end
	// normally: cancelled, failed or step_cap.
	Status  string    `json:"status,omitempty"`
	Created time.Time `json:"created"`
}

// MessageUsage is a step's token count as the provider reported it.
type MessageUsage struct {
	InputTokens       int64 `json:"input_tokens"`
	OutputTokens      int64 `json:"output_tokens"`
	CachedInputTokens int64 `json:"cached_input_tokens,omitempty"`
	CacheWriteTokens  int64 `json:"cache_write_tokens,omitempty"`
}

// MessageObserver is told of messages once they are durable (the
// session_search index keeps itself up to date through it).
type MessageObserver func(msgs []MessageRecord)

var observers struct {
	sync.Mutex
	byStore map[*Store][]MessageObserver
}

// ObserveMessages adds fn to the observers of s's appended messages.
func (s *Store) ObserveMessages(fn MessageObserver) {
	observers.Lock()
	defer observers.Unlock()
	if observers.byStore == nil {
		observers.byStore = map[*Store][]MessageObserver{}
	}
	observers.byStore[s] = append(observers.byStore[s], fn)
}

func (s *Store) messageObservers() []MessageObserver {
	observers.Lock()
	defer observers.Unlock()
	return observers.byStore[s]
}

// messageKey is session, NUL, big-endian seq: a session's messages are one
// ordered key range.
func messageKey(session string, seq uint64) []byte {
	k := make([]byte, 0, len(session)+9)
	k = append(k, session...)
	k = append(k, 0)
	return binary.BigEndian.AppendUint64(k, seq)
}

// AppendMessages stores msgs as the next messages of session, durably,
// assigning their Seq, and returns them as stored.
func (s *Store) AppendMessages(ctx context.Context, session string, msgs []MessageRecord) ([]MessageRecord, error) {
	out, req, err := s.messageWrite(session, msgs)
	if err != nil || req == nil {
		return out, err
	}
	if err := s.enqueue(ctx, req); err != nil {
		s.forget(session)
		return nil, err
	}
	<-req.done
	if req.err != nil {
		return nil, req.err
	}
	return out, nil
}

func lastSeq(b *bolt.Bucket, session string) uint64 {
	c := b.Cursor()
	prefix := append([]byte(session), 0)
	k, _ := c.Seek(messageKey(session, ^uint64(0)))
	if k == nil {
		k, _ = c.Last()
	} else if !bytes.Equal(k, messageKey(session, ^uint64(0))) {
		k, _ = c.Prev()
	}
	if k == nil || !bytes.HasPrefix(k, prefix) || len(k) != len(prefix)+8 {
		return 0
	}
	return binary.BigEndian.Uint64(k[len(prefix):])
}

// Messages returns session's messages with Seq > after, in order. Owner
// checks are the caller's (Session first).
func (s *Store) Messages(session string, after uint64) ([]MessageRecord, error) {
	var out []MessageRecord
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte(BucketMessages)).Cursor()
		prefix := append([]byte(session), 0)
		for k, v := c.Seek(messageKey(session, after+1)); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8; k, v = c.Next() {
			var m MessageRecord
			if err := json.Unmarshal(v, &m); err != nil {
				return fmt.Errorf("decode message %x: %w: %w", k, ErrBadRecord, err)
			}
			out = append(out, m)
		}
		return nil
	})
	return out, err
}

// MessageCount is how many messages session has (its last Seq).
func (s *Store) MessageCount(session string) (uint64, error) {
	var n uint64
	err := s.view(func(tx *bolt.Tx) error {
		n = lastSeq(tx.Bucket([]byte(BucketMessages)), session)
		return nil
	})
	return n, err
}
