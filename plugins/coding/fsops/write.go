package fsops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// WriteParams are the arguments of write_file.
type WriteParams struct {
	Path       string `json:"path" jsonschema_description:"File to create or overwrite, relative to the workspace."`
	Content    string `json:"content" jsonschema_description:"The complete new content of the file (UTF-8)."`
	CreateDirs bool   `json:"create_dirs,omitempty" jsonschema_description:"Create missing parent directories."`
}

// WriteResult describes a published write.
type WriteResult struct {
	Path         string `json:"path"`
	BytesWritten int64  `json:"bytes_written"`
	Created      bool   `json:"created"` // false: an existing file was replaced
	Mode         string `json:"mode"`    // permission bits of the published file, e.g. "0644"
	SHA256       string `json:"sha256"`
	// DroppedBits names the mode bits of the replaced file the new one
	// does not get ("setuid"); empty when none.
	DroppedBits string `json:"dropped_bits,omitempty"`
}

// newFileMode is the mode of a created file; an overwrite keeps the old bits.
const newFileMode os.FileMode = 0o644

// WritePrecheck runs before approval: it applies every refusal WriteFile
// would (path, credential-like names, symlinks, the target's type and
// links, a missing parent without create_dirs) and changes nothing, so
// nobody is asked to approve a write that cannot happen.
func WritePrecheck(ctx context.Context, ws *Workspace, p WriteParams) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	pp, err := ws.pinParent(p.Path, false)
	if errors.Is(err, ErrNotFound) && p.CreateDirs {
		return nil // the write creates the parent; the path itself was checked
	}
	if err != nil {
		return err
	}
	defer pp.Close()
	_, _, err = pp.statTarget(p.Path)
	return err
}

// WriteFile creates or atomically replaces a file: the content is staged
// beside the target in the pinned parent directory, synced, given the old
// file's permission bits, and swapped in for the target (publish.go). An
// interrupted write never leaves a half-written file at the target path.
func WriteFile(ctx context.Context, ws *Workspace, p WriteParams) (WriteResult, error) {
	if err := ctx.Err(); err != nil {
		return WriteResult{}, err
	}
	pp, err := ws.pinParent(p.Path, p.CreateDirs)
	if err != nil {
		return WriteResult{}, err
	}
	defer pp.Close()
	pp.sweepStaged(time.Now()) // what a killed writer left here
	ws.sweepOnce(time.Now())   // and, once per process, elsewhere in the tree
	st, exists, err := pp.statTarget(p.Path)
	if err != nil {
		return WriteResult{}, err
	}
	mode, dropped := uint32(newFileMode), ""
	var was *fileIdentity
	if exists {
		mode, dropped = keptMode(&st)
		was = identityOf(&st)
	}
	f, err := pp.stage()
	if err != nil {
		return WriteResult{}, err
	}
	h := sha256.New()
	n, err := io.WriteString(io.MultiWriter(f, h), p.Content)
	if err != nil {
		f.discard()
		return WriteResult{}, fmt.Errorf("%s: write staged file: %w", p.Path, err)
	}
	if err := ctx.Err(); err != nil {
		f.discard()
		return WriteResult{}, err
	}
	// Replacing, the exchange checks that it displaces the file stat'ed
	// above; creating, that no file appeared at the name meanwhile.
	if err := f.publish(mode, was); err != nil {
		return WriteResult{}, err
	}
	return WriteResult{
		Path:         pp.t.display,
		BytesWritten: int64(n),
		Created:      !exists,
		Mode:         fmt.Sprintf("%04o", mode),
		SHA256:       hex.EncodeToString(h.Sum(nil)),
		DroppedBits:  dropped,
	}, nil
}
