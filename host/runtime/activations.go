package runtime

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Activation is one deferred tool a session activated with
// search_capabilities. Activation only adds: there is no way to remove one.
type Activation struct {
	Session string    `json:"session"`
	Tool    string    `json:"tool"`
	Turn    string    `json:"turn,omitempty"`
	Created time.Time `json:"created"`
}

func activationKey(session, tool string) []byte {
	k := make([]byte, 0, len(session)+1+len(tool))
	k = append(k, session...)
	k = append(k, 0)
	return append(k, tool...)
}

// RecordActivations stores that session activated tools, durably; a tool
// already recorded keeps its first record.
func (s *Store) RecordActivations(ctx context.Context, session, turn string, tools []string) error {
	if session == "" {
		return errors.New("activations need a session")
	}
	if len(tools) == 0 {
		return nil
	}
	now := time.Now().UTC()
	return s.update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketActivations))
		for _, tool := range tools {
			k := activationKey(session, tool)
			if b.Get(k) != nil {
				continue
			}
			v, err := json.Marshal(Activation{Session: session, Tool: tool, Turn: turn, Created: now})
			if err != nil {
				return fmt.Errorf("encode activation %s: %w", tool, err)
			}
			if err := b.Put(k, v); err != nil {
				return err
			}
		}
		return nil
	})
}

// Activations lists the tools session activated, oldest first.
func (s *Store) Activations(session string) ([]Activation, error) {
	var out []Activation
	prefix := append([]byte(session), 0)
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte(BucketActivations)).Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			var a Activation
			if err := json.Unmarshal(v, &a); err != nil {
				return fmt.Errorf("decode activation %q: %w", k, err)
			}
			out = append(out, a)
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b Activation) int { return a.Created.Compare(b.Created) })
	return out, err
}
