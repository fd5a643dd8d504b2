package fsops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"time"
)

// PatchParams are the arguments of patch: an exact string replacement.
type PatchParams struct {
	Path       string `json:"path" jsonschema_description:"File to edit, relative to the workspace."`
	OldString  string `json:"old_string" jsonschema_description:"Exact text to replace, including whitespace and line endings. It must occur exactly once unless replace_all is set."`
	NewString  string `json:"new_string" jsonschema_description:"Text to put in its place."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema_description:"Replace every occurrence instead of requiring a unique one."`
}

// PrecheckResult is what PatchPrecheck found: the edit would apply.
type PrecheckResult struct {
	Path         string `json:"path"`
	Matches      int    `json:"matches"`
	Replacements int    `json:"replacements"`
	FileSize     int64  `json:"file_size"`
}

// PatchResult describes a published edit.
type PatchResult struct {
	Path         string `json:"path"`
	Replacements int    `json:"replacements"`
	BytesBefore  int64  `json:"bytes_before"`
	BytesAfter   int64  `json:"bytes_after"`
	Diff         string `json:"diff"` // excerpt of the first change
	// DroppedBits names the mode bits the edited file lost ("setuid,
	// setgid"); empty when none.
	DroppedBits string `json:"dropped_bits,omitempty"`
	// SHA256 is the edited file's new content's sha256, as write_file's
	// result and read_file give it: what a later write_file binds to with
	// expected_sha256.
	SHA256 string `json:"sha256"`
}

// validatePatch refuses degenerate requests before any file is touched.
func validatePatch(p PatchParams) error {
	if p.OldString == "" {
		return refuse(p.Path, ErrInvalidArgument, "old_string is empty; give the exact text to replace (use write_file to create or overwrite a whole file)")
	}
	if p.OldString == p.NewString {
		return refuse(p.Path, ErrInvalidArgument, "old_string and new_string are identical; nothing would change")
	}
	return nil
}

// decide turns the counts of a streaming pass into the refusal the model
// can act on. An edit without replace_all needs old_string to start at
// exactly one offset: two overlapping occurrences are two places the
// model may have meant, though only one of them could be replaced.
func decide(p PatchParams, st replaceStats) error {
	switch {
	case st.matches == 0:
		return refuse(p.Path, ErrNoMatch, "old_string not found; read the file and copy the exact text, including whitespace and line endings")
	case st.starts > 1 && !p.ReplaceAll:
		overlap := ""
		if st.starts > st.matches {
			overlap = " (some overlapping)"
		}
		return refuse(p.Path, ErrAmbiguousMatch, "old_string occurs %d times%s; add surrounding context or set replace_all", st.starts, overlap)
	}
	return nil
}

func replacements(p PatchParams, matches int) int {
	if p.ReplaceAll {
		return matches
	}
	return 1
}

// PatchPrecheck runs before approval: it applies every check Patch applies
// (path, file type, sensitive and symlink refusals, match count) by
// streaming the file, and changes nothing.
func PatchPrecheck(ctx context.Context, ws *Workspace, p PatchParams) (PrecheckResult, error) {
	if err := validatePatch(p); err != nil {
		return PrecheckResult{}, err
	}
	pp, err := ws.pinParent(p.Path, false)
	if err != nil {
		return PrecheckResult{}, err
	}
	defer pp.Close()
	src, st, err := pp.openSource(p.Path)
	if err != nil {
		return PrecheckResult{}, err
	}
	defer src.Close()
	stats, err := replaceStream(ctx, src, io.Discard, []byte(p.OldString), []byte(p.NewString), p.ReplaceAll, patchChunk)
	if err != nil {
		return PrecheckResult{}, fmt.Errorf("%s: read: %w", p.Path, err)
	}
	if err := decide(p, stats); err != nil {
		return PrecheckResult{}, err
	}
	return PrecheckResult{Path: pp.t.display, Matches: stats.matches, Replacements: replacements(p, stats.matches), FileSize: st.Size}, nil
}

// Patch replaces old_string with new_string, streaming the file into a
// staged file beside it. The match count is known only at the end: a
// rejected edit discards the staged file and leaves the original as it
// was; an accepted one is swapped in for it in the pinned parent
// directory (publish.go), keeping the permission bits.
func Patch(ctx context.Context, ws *Workspace, p PatchParams) (PatchResult, error) {
	if err := validatePatch(p); err != nil {
		return PatchResult{}, err
	}
	pp, err := ws.pinParent(p.Path, false)
	if err != nil {
		return PatchResult{}, err
	}
	defer pp.Close()
	pp.sweepStaged(time.Now()) // what a killed writer left here
	ws.sweepOnce(time.Now())   // and, once per process, elsewhere in the tree
	src, st, err := pp.openSource(p.Path)
	if err != nil {
		return PatchResult{}, err
	}
	defer src.Close()
	staged, err := pp.stage()
	if err != nil {
		return PatchResult{}, err
	}
	h := sha256.New()
	stats, err := replaceStream(ctx, src, io.MultiWriter(staged, h), []byte(p.OldString), []byte(p.NewString), p.ReplaceAll, patchChunk)
	if err != nil {
		staged.discard()
		return PatchResult{}, fmt.Errorf("%s: rewrite: %w", p.Path, err)
	}
	if err := decide(p, stats); err != nil {
		staged.discard()
		return PatchResult{}, err
	}
	// The exchange checks that what it displaces is the file read here,
	// as it was when opened: identity from the descriptor read from.
	mode, dropped := keptMode(st)
	if err := staged.publish(mode, identityOf(st)); err != nil {
		return PatchResult{}, err
	}
	return PatchResult{
		Path:         pp.t.display,
		Replacements: replacements(p, stats.matches),
		BytesBefore:  stats.bytesIn,
		BytesAfter:   stats.bytesOut,
		Diff:         stats.ex.render(p.OldString, p.NewString),
		DroppedBits:  dropped,
		SHA256:       hex.EncodeToString(h.Sum(nil)),
	}, nil
}
