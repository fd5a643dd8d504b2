package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// MessageSessions maps every session that has messages to its last Seq.
// It seeks from one session's range to the next, so it reads two keys per
// session, not every message.
func (s *Store) MessageSessions() (map[string]uint64, error) {
	out := map[string]uint64{}
	err := s.view(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketMessages))
		c := b.Cursor()
		for k, _ := c.First(); k != nil; {
			i := bytes.IndexByte(k, 0)
			if i < 0 || len(k) != i+9 {
				k, _ = c.Next() // not a message key; skip it
				continue
			}
			session := string(k[:i])
			out[session] = lastSeq(b, session)
			// The next session's range starts after session NUL 0xff…
			k, _ = c.Seek(append(append([]byte(session), 0), bytes.Repeat([]byte{0xff}, 9)...))
		}
		return nil
	})
	return out, err
}

// MessagesRange returns at most n of session's messages with Seq > after,
// in order: a bounded read where Messages reads to the end.
func (s *Store) MessagesRange(session string, after uint64, n int) ([]MessageRecord, error) {
	var out []MessageRecord
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte(BucketMessages)).Cursor()
		prefix := append([]byte(session), 0)
		for k, v := c.Seek(messageKey(session, after+1)); k != nil && len(out) < n && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8; k, v = c.Next() {
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
