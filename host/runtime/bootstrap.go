package runtime

import (
	"context"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// BucketBootstrap holds each session's bootstrap snapshot (host/pipeline),
// keyed by principal NUL session: made once, on the session's first turn,
// and used by every later turn and resume.
const BucketBootstrap = "bootstrap"

// MaxBootstrapBytes bounds one stored snapshot.
const MaxBootstrapBytes = 256 << 10

func bootstrapKey(principal, session string) ([]byte, error) {
	if principal == "" || session == "" {
		return nil, errors.New("a bootstrap snapshot needs a principal and a session")
	}
	return []byte(principal + "\x00" + session), nil
}

// Bootstrap is principal's session's stored snapshot (the caller's
// encoding); ok is false when none was stored.
func (s *Store) Bootstrap(principal, session string) (data []byte, ok bool, err error) {
	key, err := bootstrapKey(principal, session)
	if err != nil {
		return nil, false, err
	}
	err = s.view(func(tx *bolt.Tx) error {
		if v := tx.Bucket([]byte(BucketBootstrap)).Get(key); v != nil {
			data, ok = append([]byte(nil), v...), true
		}
		return nil
	})
	return data, ok, err
}

// PutBootstrapOnce stores data as the session's snapshot unless one is
// stored already, durably, and returns the one stored: a snapshot is made
// once per session, and a second maker loses to the first.
func (s *Store) PutBootstrapOnce(ctx context.Context, principal, session string, data []byte) ([]byte, error) {
	key, err := bootstrapKey(principal, session)
	if err != nil {
		return nil, err
	}
	if len(data) > MaxBootstrapBytes {
		return nil, fmt.Errorf("a bootstrap snapshot of %d bytes is over the %d-byte limit", len(data), MaxBootstrapBytes)
	}
	stored := data
	err = s.update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketBootstrap))
		if v := b.Get(key); v != nil {
			stored = append([]byte(nil), v...)
			return nil
		}
		return b.Put(key, data)
	})
	return stored, err
}
