package runtime

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// ErrBadRecord is a stored value that is not a record (torn or
// tampered): it costs its own session, never a listing of the others.
var ErrBadRecord = errors.New("not a record")

// UnreadableTitle stands for the first message of a session whose first
// record is bad, where sessions are listed.
const UnreadableTitle = "(its first message cannot be read)"

// FirstMessage is session's first message (a conversation's title, for a
// session list); ok false when the session has none. It reads one record,
// not the history.
func (s *Store) FirstMessage(session string) (m MessageRecord, ok bool, err error) {
	err = s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte(BucketMessages)).Cursor()
		prefix := append([]byte(session), 0)
		k, v := c.Seek(messageKey(session, 1))
		if k == nil || !bytes.HasPrefix(k, prefix) || len(k) != len(prefix)+8 {
			return nil
		}
		if err := json.Unmarshal(v, &m); err != nil {
			return fmt.Errorf("decode message %x: %w: %w", k, ErrBadRecord, err)
		}
		ok = true
		return nil
	})
	return m, ok, err
}
