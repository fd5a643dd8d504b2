package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

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
			return fmt.Errorf("decode message %x: %w", k, err)
		}
		ok = true
		return nil
	})
	return m, ok, err
}
