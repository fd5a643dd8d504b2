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

	"golang.org/x/sys/unix"
)

// WriteParams are the arguments of write_file.
type WriteParams struct {
	Path       string `json:"path" jsonschema_description:"File to create or overwrite, relative to the workspace."`
	Content    string `json:"content" jsonschema_description:"The complete new content of the file (UTF-8)."`
	CreateDirs bool   `json:"create_dirs,omitempty" jsonschema_description:"Create missing parent directories."`
	// ExpectedSHA256 binds the write to the file it replaces. The host
	// sets it (when the model did not) to the file the approver was
	// shown, so a change made after that (an editor's save) is not lost.
	ExpectedSHA256 string `json:"expected_sha256,omitempty" jsonschema_description:"Optional: the sha256 (lowercase hex) of the content this write replaces, or \"absent\" for a file that must not exist yet. If the file is otherwise, nothing is written."`
}

// expectAbsent is ExpectedSHA256 for a write that must create the file.
const expectAbsent = "absent"

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
	st, exists, err := pp.statTarget(p.Path)
	if err != nil {
		return err
	}
	if _, err = pp.checkExpected(p.Path, p.ExpectedSHA256, &st, exists); err != nil {
		return err
	}
	return pp.checkLossyRewrite(p.Path, p.Content, exists)
}

// checkExpected refuses a write whose file is not the one expected
// (ExpectedSHA256): another content, a file where none was expected, or
// none where one was. For an existing file it returns the identity of the
// descriptor whose content was hashed, which publish then requires of the
// file it displaces, so a change after the hash is caught there. With no
// expectation it returns the identity of st (nil when there is no file).
func (pp *pinnedParent) checkExpected(p, expected string, st *unix.Stat_t, exists bool) (*fileIdentity, error) {
	switch {
	case expected == "":
		if !exists {
			return nil, nil
		}
		return identityOf(st), nil
	case expected == expectAbsent:
		if exists {
			return nil, refuse(p, ErrChanged, "the file exists now but was expected not to (it was created since it was shown for approval): nothing was written; read it and retry")
		}
		return nil, nil
	case !validSHA256(expected):
		return nil, refuse(p, ErrInvalidArgument, "expected_sha256 must be 64 lowercase hex digits or \"absent\"")
	case !exists:
		return nil, refuse(p, ErrChanged, "the file was removed since the content it was expected to have was read: nothing was written")
	}
	src, sst, err := pp.openSource(p)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	h := sha256.New()
	if _, err := io.Copy(h, src); err != nil {
		return nil, fmt.Errorf("%s: read: %w", p, err)
	}
	if hex.EncodeToString(h.Sum(nil)) != expected {
		return nil, refuse(p, ErrChanged, "the file's content is not the one expected (it changed since it was read or shown for approval): nothing was written; read it again and retry")
	}
	return identityOf(sst), nil
}

func validSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
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
	was, err := pp.checkExpected(p.Path, p.ExpectedSHA256, &st, exists)
	if err != nil {
		return WriteResult{}, err
	}
	if err := pp.checkLossyRewrite(p.Path, p.Content, exists); err != nil {
		return WriteResult{}, err
	}
	if exists {
		mode, dropped = keptMode(&st)
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
