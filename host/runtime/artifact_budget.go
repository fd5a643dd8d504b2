package runtime

import (
	"context"
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
	recs, err := scanRecords(s, BucketArtifacts, "artifact", func(*ArtifactRecord) bool { return true })
	if err != nil {
		return rep, err
	}
	var total int64
	for _, r := range recs {
		total += r.Size
	}
	rep.KeptBytes = total
	if total <= budget {
		return rep, nil
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
			return tx.Bucket([]byte(BucketArtifacts)).Delete([]byte(r.Ref))
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
