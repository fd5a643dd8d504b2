package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// SessionRecord is one session a host has run turns in: whose it is and,
// for a delegated child, which session delegated it. Resuming a session
// needs its record and the same principal.
type SessionRecord struct {
	ID        string    `json:"id"`
	Principal string    `json:"principal"`
	Parent    string    `json:"parent,omitempty"`
	Created   time.Time `json:"created"`
}

// ErrNoSession answers a lookup of a session that does not exist and of
// one that belongs to another principal alike.
var ErrNoSession = errors.New("no such session")

// RecordSession stores rec durably unless a record of that id exists
// already; the first record of an id wins, so a session cannot change
// owner.
func (s *Store) RecordSession(ctx context.Context, rec SessionRecord) error {
	v, err := encodeSession(rec)
	if err != nil {
		return err
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketSessions))
		if b.Get([]byte(rec.ID)) != nil {
			return nil
		}
		return b.Put([]byte(rec.ID), v)
	})
}

// encodeSession checks and encodes rec, stamping its creation time.
func encodeSession(rec SessionRecord) ([]byte, error) {
	if rec.ID == "" || rec.Principal == "" {
		return nil, errors.New("a session record needs an id and a principal")
	}
	if rec.Created.IsZero() {
		rec.Created = time.Now().UTC()
	}
	v, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("encode session %s: %w", rec.ID, err)
	}
	return v, nil
}

// Session is principal's session id, or ErrNoSession.
func (s *Store) Session(principal, id string) (SessionRecord, error) {
	var rec SessionRecord
	err := s.view(func(tx *bolt.Tx) error {
		v := tx.Bucket([]byte(BucketSessions)).Get([]byte(id))
		if v == nil {
			return ErrNoSession
		}
		if err := json.Unmarshal(v, &rec); err != nil {
			return fmt.Errorf("decode session %s: %w", id, err)
		}
		if principal == "" || rec.Principal != principal {
			return ErrNoSession
		}
		return nil
	})
	return rec, err
}

// Sessions lists principal's sessions, oldest first.
func (s *Store) Sessions(principal string) ([]SessionRecord, error) {
	out, err := scanRecords(s, BucketSessions, "session", func(rec *SessionRecord) bool {
		return principal != "" && rec.Principal == principal
	})
	slices.SortStableFunc(out, func(a, b SessionRecord) int { return a.Created.Compare(b.Created) })
	return out, err
}
