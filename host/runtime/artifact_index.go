package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ArtifactRecord is one entry of the artifact index: a file a tool wrote
// under its session's artifact root, named by the opaque root and the path
// under it. A host path never appears; the store's owner joins Root and
// Path under runtime/artifacts when an operator asks for the bytes.
type ArtifactRecord struct {
	// Ref is Root + "/" + Path, the name views and task records use.
	Ref       string    `json:"ref"`
	Root      string    `json:"root"`
	Path      string    `json:"path"`
	MediaType string    `json:"media_type,omitempty"`
	Size      int64     `json:"size"`
	SHA256    string    `json:"sha256,omitempty"`
	Tool      string    `json:"tool"`
	CallID    string    `json:"call_id,omitempty"`
	TaskID    string    `json:"task_id,omitempty"`
	Principal string    `json:"principal"`
	Session   string    `json:"session"`
	Created   time.Time `json:"created"`
}

// ErrBadArtifactRef is IndexArtifact's answer to a reference that is not
// an opaque root followed by a relative path inside it.
var ErrBadArtifactRef = errors.New("artifact reference must be an opaque root and a relative path under it")

// IndexArtifact records rec durably (one group commit) and returns once it
// is on disk. Its key is Ref: a tool that reports the same file again (a
// stream that grew) updates the entry.
func (s *Store) IndexArtifact(ctx context.Context, rec ArtifactRecord) error {
	if err := checkArtifactRef(rec.Root, rec.Path); err != nil {
		return err
	}
	rec.Ref = rec.Root + "/" + rec.Path
	if rec.Created.IsZero() {
		rec.Created = time.Now().UTC()
	}
	v, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode artifact %s: %w", rec.Ref, err)
	}
	return s.update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketArtifacts))
		old := recordSize(b.Get([]byte(rec.Ref)))
		if err := b.Put([]byte(rec.Ref), v); err != nil {
			return err
		}
		return addArtifactBytes(tx, rec.Size-old)
	})
}

// Artifacts lists the index entries of one principal's session, in
// reference order. Another principal's or session's entries are not
// returned.
func (s *Store) Artifacts(principal, session string) ([]ArtifactRecord, error) {
	return scanRecords(s, BucketArtifacts, "artifact", func(rec *ArtifactRecord) bool {
		return principal != "" && rec.Principal == principal && rec.Session == session
	})
}

func checkArtifactRef(root, rel string) error {
	if root == "" || strings.ContainsAny(root, `/\`) || root == "." || root == ".." {
		return fmt.Errorf("%w: root %q", ErrBadArtifactRef, root)
	}
	if rel == "" || path.IsAbs(rel) || path.Clean(rel) != rel || rel == ".." || strings.HasPrefix(rel, "../") || strings.Contains(rel, `\`) {
		return fmt.Errorf("%w: path %q", ErrBadArtifactRef, rel)
	}
	return nil
}
