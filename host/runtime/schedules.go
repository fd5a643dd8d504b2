package runtime

import (
	"context"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// The schedules bucket holds three spaces, each a nested bucket: the
// schedules themselves (keyed by id), their runs (keyed by schedule id,
// NUL, run id) and the scheduler's operator controls (the pause-all
// switch). The store keeps bytes; host/schedule owns their meaning, so
// that a later shared store (etcd) has the same narrow surface.
const (
	ScheduleDefs    = "defs"
	ScheduleRuns    = "runs"
	ScheduleControl = "control"
)

func scheduleSpace(tx *bolt.Tx, space string, create bool) (*bolt.Bucket, error) {
	root := tx.Bucket([]byte(BucketSchedules))
	if create {
		return root.CreateBucketIfNotExists([]byte(space))
	}
	return root.Bucket([]byte(space)), nil
}

// ScheduleUpdate reads key in space and stores what fn returns in one
// transaction: nil deletes the key, and a non-nil event is written in
// the same commit (a schedule's change and its audit land together).
// An error from fn commits nothing. This is the compare-and-swap every
// claim goes through.
func (s *Store) ScheduleUpdate(ctx context.Context, space, key string, fn func(old []byte) (next []byte, ev *Event, err error)) error {
	return s.update(ctx, func(tx *bolt.Tx) error {
		b, err := scheduleSpace(tx, space, true)
		if err != nil {
			return err
		}
		var old []byte
		if v := b.Get([]byte(key)); v != nil {
			old = append([]byte(nil), v...)
		}
		next, ev, err := fn(old)
		if err != nil {
			return err
		}
		if next == nil {
			if err := b.Delete([]byte(key)); err != nil {
				return err
			}
		} else if err := b.Put([]byte(key), next); err != nil {
			return err
		}
		if ev != nil {
			return putEvent(tx, *ev)
		}
		return nil
	})
}

// ScheduleGet is key's value in space (nil when absent).
func (s *Store) ScheduleGet(space, key string) ([]byte, error) {
	var out []byte
	err := s.view(func(tx *bolt.Tx) error {
		b, _ := scheduleSpace(tx, space, false)
		if b == nil {
			return nil
		}
		if v := b.Get([]byte(key)); v != nil {
			out = append([]byte(nil), v...)
		}
		return nil
	})
	return out, err
}

// ScheduleScan calls fn for each key of space that starts with prefix,
// in key order, until fn returns false. The value is valid only during
// the call.
func (s *Store) ScheduleScan(space, prefix string, fn func(key string, value []byte) bool) error {
	return s.view(func(tx *bolt.Tx) error {
		b, _ := scheduleSpace(tx, space, false)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		for k, v := c.Seek([]byte(prefix)); k != nil && strings.HasPrefix(string(k), prefix); k, v = c.Next() {
			if !fn(string(k), v) {
				return nil
			}
		}
		return nil
	})
}

// ScheduleScanReverse is ScheduleScan from the last key with prefix
// backwards (newest runs first).
func (s *Store) ScheduleScanReverse(space, prefix string, fn func(key string, value []byte) bool) error {
	return s.view(func(tx *bolt.Tx) error {
		b, _ := scheduleSpace(tx, space, false)
		if b == nil {
			return nil
		}
		c := b.Cursor()
		// Seek past every key with prefix: prefix followed by 0xff.
		k, v := c.Seek(append([]byte(prefix), 0xff))
		if k == nil {
			k, v = c.Last()
		} else {
			k, v = c.Prev()
		}
		for ; k != nil && strings.HasPrefix(string(k), prefix); k, v = c.Prev() {
			if !fn(string(k), v) {
				return nil
			}
		}
		return nil
	})
}
