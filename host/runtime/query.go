package runtime

import (
	"bytes"

	bolt "go.etcd.io/bbolt"
)

// EventQuery selects events. Zero fields do not filter.
type EventQuery struct {
	Since       uint64 // only events with Seq > Since
	Before      uint64 // only events with Seq < Before (for paging back); 0 = no bound
	Kind        string
	Session     string
	Tool        string
	Limit       int  // at most this many; 0 = all
	NewestFirst bool // descending Seq; the default is ascending
}

func (q EventQuery) match(ev Event) bool {
	return (q.Kind == "" || ev.Kind == q.Kind) &&
		(q.Session == "" || ev.Session == q.Session) &&
		(q.Tool == "" || ev.Tool == q.Tool)
}

// Events returns the events q selects, in Seq order (descending with
// NewestFirst).
func (s *Store) Events(q EventQuery) ([]Event, error) {
	var out []Event
	err := s.view(func(tx *bolt.Tx) error {
		c := tx.Bucket([]byte(BucketEvents)).Cursor()
		k, v, next, inRange := q.start(c)
		for ; k != nil && inRange(k); k, v = next() {
			ev, err := decodeEvent(k, v)
			if err != nil {
				return err
			}
			if !q.match(ev) {
				continue
			}
			out = append(out, ev)
			if q.Limit > 0 && len(out) >= q.Limit {
				break
			}
		}
		return nil
	})
	return out, err
}

// start positions c at the first key to visit and says how to step and
// when the walk has left the Since/Before window.
func (q EventQuery) start(c *bolt.Cursor) (k, v []byte, next func() ([]byte, []byte), inRange func([]byte) bool) {
	since, before := seqKey(q.Since), seqKey(q.Before)
	if q.NewestFirst {
		switch {
		case q.Before == 0:
			k, v = c.Last()
		default:
			if k, v = c.Seek(before); k == nil {
				k, v = c.Last()
			} else {
				k, v = c.Prev()
			}
		}
		return k, v, c.Prev, func(k []byte) bool { return bytes.Compare(k, since) > 0 }
	}
	if q.Since == ^uint64(0) {
		return nil, nil, c.Next, nil
	}
	k, v = c.Seek(seqKey(q.Since + 1))
	return k, v, c.Next, func(k []byte) bool { return q.Before == 0 || bytes.Compare(k, before) < 0 }
}
