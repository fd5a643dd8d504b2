package fsops

import (
	"errors"
	"fmt"
)

// Kinds of refusal, for errors.Is. The message the model reads is the
// RefusedError's text, which names the path and what to do instead.
var (
	ErrInvalidPath      = errors.New("invalid path")
	ErrOutsideWorkspace = errors.New("outside the workspace")
	ErrNotFound         = errors.New("not found")
	ErrIsDirectory      = errors.New("is a directory")
	ErrNotRegular       = errors.New("not a regular file")
	ErrHardLinked       = errors.New("multiply hard-linked")
	ErrSymlink          = errors.New("reached through a symlink")
	ErrSensitive        = errors.New("sensitive path")
	ErrInvalidArgument  = errors.New("invalid argument")
	ErrNoMatch          = errors.New("no match")
	ErrAmbiguousMatch   = errors.New("ambiguous match")
	ErrChanged          = errors.New("changed during the operation")
	// ErrLossyRewrite: a write whose content holds U+FFFD would replace a
	// file that holds bytes that are not valid UTF-8. read_file shows each
	// run of such bytes as U+FFFD, so content copied from it and written
	// back would turn a Latin-1 "é" (or any byte the model never saw) into
	// U+FFFD for good; patch changes only what it matches and keeps them.
	ErrLossyRewrite = errors.New("would replace bytes that are not valid UTF-8")
)

// RefusedError is a model-facing refusal: Path is the path as the caller
// gave it, Reason a short sentence that says what is wrong and what to do.
type RefusedError struct {
	Path   string
	Reason string
	Kind   error
}

func (e *RefusedError) Error() string {
	if e.Path == "" {
		return e.Reason
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Reason)
}

func (e *RefusedError) Unwrap() error { return e.Kind }

func refuse(path string, kind error, format string, args ...any) error {
	return &RefusedError{Path: path, Reason: fmt.Sprintf(format, args...), Kind: kind}
}
