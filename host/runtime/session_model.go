package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// SetSessionModel records the model configuration (the JSON of a
// providers.Config: provider, name, base URL, the key's variable name,
// never a key) a session last ran with, so that resuming it needs no
// --model. An unchanged configuration is not written again.
func (s *Store) SetSessionModel(ctx context.Context, session string, cfg json.RawMessage) error {
	if session == "" || !json.Valid(cfg) {
		return fmt.Errorf("session model: want a session id and a JSON configuration")
	}
	var same bool
	_ = s.view(func(tx *bolt.Tx) error {
		same = bytes.Equal(tx.Bucket([]byte(BucketSessionModels)).Get([]byte(session)), cfg)
		return nil
	})
	if same {
		return nil
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(BucketSessionModels)).Put([]byte(session), append([]byte(nil), cfg...))
	})
}

// SessionModel is the configuration SetSessionModel last recorded for the
// session; nil when none was.
func (s *Store) SessionModel(session string) (json.RawMessage, error) {
	var out json.RawMessage
	err := s.view(func(tx *bolt.Tx) error {
		if v := tx.Bucket([]byte(BucketSessionModels)).Get([]byte(session)); v != nil {
			out = append(json.RawMessage(nil), v...)
		}
		return nil
	})
	return out, err
}
