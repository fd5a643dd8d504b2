package manifest

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Kind says how an entrypoint runs.
type Kind string

const (
	// KindPython is module:function, a Python callable in the tool
	// directory, run through the bridge by python3 in isolated mode.
	KindPython Kind = "python"
	// KindExec is exec:<path>, an executable in the tool directory that
	// speaks the worker protocol itself.
	KindExec Kind = "exec"
)

// Entrypoint is what runs a call.
type Entrypoint struct {
	Kind     Kind
	Module   string // python: module name, the file <Module>.py
	Function string // python: the callable
	Path     string // exec: slash path relative to the tool directory
}

func (e Entrypoint) String() string {
	if e.Kind == KindExec {
		return "exec:" + e.Path
	}
	return e.Module + ":" + e.Function
}

var pyIdentifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,99}$`)

// ParseEntrypoint reads "module:function" or "exec:relative/path".
func ParseEntrypoint(s string) (Entrypoint, error) {
	if p, ok := strings.CutPrefix(s, "exec:"); ok {
		clean := path.Clean(p)
		switch {
		case p == "" || strings.ContainsRune(p, '\\'):
			return Entrypoint{}, fmt.Errorf("exec entrypoint %q: give a slash path inside the tool directory, e.g. exec:bin/tool", clip(s))
		case path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || clean == ".":
			return Entrypoint{}, fmt.Errorf("exec entrypoint %q leaves the tool directory; give a path inside it", clip(s))
		}
		return Entrypoint{Kind: KindExec, Path: clean}, nil
	}
	mod, fn, ok := strings.Cut(s, ":")
	if !ok {
		return Entrypoint{}, errors.New(`want "module:function" (a Python callable in the tool directory) or "exec:<path>" (an executable speaking the worker protocol)`)
	}
	if !pyIdentifier.MatchString(mod) || !pyIdentifier.MatchString(fn) {
		return Entrypoint{}, fmt.Errorf("%q: module and function must be Python identifiers, as in module:execute", clip(s))
	}
	return Entrypoint{Kind: KindPython, Module: mod, Function: fn}, nil
}
