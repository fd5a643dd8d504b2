package runtime

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// DefaultArtifactBudget is the total size of the indexed artifacts under
// runtime/artifacts when the operator set none.
const DefaultArtifactBudget int64 = 4 << 30

// PruneReport says what PruneArtifacts did.
type PruneReport struct {
	Removed      []string // references, oldest first
	RemovedBytes int64
	// KeptBytes is the indexed total afterwards; it stays over the budget
	// only when what is left is live.
	KeptBytes int64
}

// PruneArtifacts keeps the indexed artifacts under dir (runtime/artifacts)
// within budget bytes: while the total is over it, the oldest artifact of
// an ended call or task goes, file and index entry. Never removed: an
// artifact of a task that has not ended, and one live reports as live
// (the call that is registering it). Files not in the index belong to
// calls still running and are never touched. The files are removed
// through an os.Root on dir, so no reference can reach outside it.
func (s *Store) PruneArtifacts(ctx context.Context, dir string, budget int64, live func(ArtifactRecord) bool) (PruneReport, error) {
	var rep PruneReport
	if budget <= 0 {
		budget = DefaultArtifactBudget
	}
	total, err := s.artifactBytes(ctx)
	if err != nil {
		return rep, err
	}
	rep.KeptBytes = total
	if total <= budget {
		return rep, nil
	}
	recs, err := scanRecords(s, BucketArtifacts, "artifact", func(*ArtifactRecord) bool { return true })
	if err != nil {
		return rep, err
	}
	slices.SortStableFunc(recs, func(a, b ArtifactRecord) int { return a.Created.Compare(b.Created) })
	root, err := os.OpenRoot(dir)
	if err != nil {
		return rep, fmt.Errorf("open the artifacts directory: %w", err)
	}
	defer root.Close()
	ended := map[string]bool{}
	var failed error
	for _, r := range recs {
		if total <= budget {
			break
		}
		if (live != nil && live(r)) || !s.taskEnded(r.TaskID, ended) || checkArtifactRef(r.Root, r.Path) != nil {
			continue
		}
		name := r.Root + "/" + r.Path
		if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
			// One entry that cannot go (a symlink out of the root, a
			// directory) must not stop the others from going.
			failed = errors.Join(failed, fmt.Errorf("remove artifact %s: %w", r.Ref, err))
			continue
		}
		// Empty directories the artifact leaves (terminal/<spawn>) go too;
		// a directory with anything left in it stays.
		for d := path.Dir(name); d != r.Root && d != "."; d = path.Dir(d) {
			if root.Remove(d) != nil {
				break
			}
		}
		if err := s.update(ctx, func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte(BucketArtifacts))
			old := b.Get([]byte(r.Ref))
			if old == nil {
				return nil // another host's prune was first
			}
			size := recordSize(old)
			if err := b.Delete([]byte(r.Ref)); err != nil {
				return err
			}
			return addArtifactBytes(tx, -size)
		}); err != nil {
			return rep, fmt.Errorf("drop artifact %s from the index: %w", r.Ref, err)
		}
		total -= r.Size
		rep.Removed = append(rep.Removed, r.Ref)
		rep.RemovedBytes += r.Size
	}
	rep.KeptBytes = total
	return rep, failed
}

var totalKey = []byte("bytes")

// artifactBytes is the indexed total, computed once by a scan in a store
// that predates the running total.
func (s *Store) artifactBytes(ctx context.Context) (int64, error) {
	var total int64
	have := false
	err := s.view(func(tx *bolt.Tx) error {
		if v := tx.Bucket([]byte(BucketArtifactTotals)).Get(totalKey); len(v) == 8 {
			total, have = int64(binary.BigEndian.Uint64(v)), true
		}
		return nil
	})
	if err != nil || have {
		return total, err
	}
	err = s.update(ctx, func(tx *bolt.Tx) error { return addArtifactBytes(tx, 0) })
	if err != nil {
		return 0, err
	}
	return s.artifactBytes(ctx)
}

// addArtifactBytes moves the running total by delta inside tx; a missing
// total is computed from the index first (which then already holds the
// change).
func addArtifactBytes(tx *bolt.Tx, delta int64) error {
	tb := tx.Bucket([]byte(BucketArtifactTotals))
	v := tb.Get(totalKey)
	var total int64
	if len(v) == 8 {
		total = int64(binary.BigEndian.Uint64(v)) + delta
	} else {
		_ = tx.Bucket([]byte(BucketArtifacts)).ForEach(func(_, rec []byte) error {
			total += recordSize(rec)
			return nil
		})
	}
	var buf [8]byte
	binary.BigEndian.PutUint64(buf[:], uint64(max(total, 0)))
	return tb.Put(totalKey, buf[:])
}

// recordSize is the size field of an encoded ArtifactRecord; 0 for none.
func recordSize(v []byte) int64 {
	if v == nil {
		return 0
	}
	var r struct {
		Size int64 `json:"size"`
	}
	_ = json.Unmarshal(v, &r)
	return r.Size
}

// taskEnded is true for an artifact of no task or of a task in a final
// state; a task that cannot be read counts as live (fail closed: keep).
func (s *Store) taskEnded(id string, cache map[string]bool) bool {
	if id == "" {
		return true
	}
	if v, ok := cache[id]; ok {
		return v
	}
	var t *Task
	err := s.view(func(tx *bolt.Tx) error {
		var err error
		t, err = getTask(tx.Bucket([]byte(BucketTasks)), id)
		return err
	})
	v := err == nil && t != nil && t.State.Terminal()
	cache[id] = v
	return v
}
