package policy

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// Workspace is the directory a session works in. Root is absolute and
// clean; NewWorkspace makes it so.
type Workspace struct {
	Root string
	// Core are the active core's files and directories (agent.yaml, the
	// slot directories), absolute: the operator's, protected for writes
	// (see protected.go). Empty for the embedded core.
	Core []string
	// State is the host's state directory, absolute; paths that resolve
	// into it are sensitive for every tool and the shell guard. "" when
	// unknown.
	State string
	// SkillsRoot is the active core's skills root, absolute: the one
	// directory skill subjects resolve in (assess_skill.go). "" when the
	// core has none.
	SkillsRoot string
	// Config is the host's own configuration directory
	// (os.UserConfigDir()/demiurge: the operator's MCP private-address
	// allowances), absolute; protected like State. "" when unknown.
	Config string
	// RunTree says the workspace is an evolution run's work tree, which
	// lies in the state directory (STATE/core/.evolve/runs/ID/agents): the
	// evolver's one writable place. Only paths inside Root, as written
	// and as their symlinks lead, are carved out of State; the rest of
	// the state directory stays the host's.
	RunTree bool

	// realRoot is Root through its symlinks, resolved once by
	// NewWorkspace; "" makes Real resolve it on every call. realState is
	// State's, resolved once by Guard.
	realRoot, realState string
	// validRoot is the Root that NewWorkspace validated: validate, which
	// every path's Resolve asks, need not clean it again while Root is
	// still that string.
	validRoot string
}

// Guard sets the active core's paths and the state directory (see Core
// and State), resolving the state directory's symlinks once.
func (w *Workspace) Guard(core []string, state string) {
	w.Core, w.State, w.realState = core, state, ""
	if state != "" {
		if r, err := realPath(filepath.Clean(state)); err == nil {
			w.realState = r
		}
	}
}

// NewWorkspace cleans root and checks that it is absolute.
func NewWorkspace(root string) (Workspace, error) {
	ws := Workspace{Root: filepath.Clean(root)}
	if err := ws.validate(); err != nil {
		return Workspace{}, err
	}
	ws.validRoot = ws.Root
	if r, err := realPath(ws.Root); err == nil {
		ws.realRoot = r
	}
	return ws, nil
}

func (w Workspace) validate() error {
	switch {
	case w.Root != "" && w.Root == w.validRoot:
		return nil
	case w.Root == "":
		return errors.New("workspace root is empty; pass an absolute directory")
	case strings.ContainsRune(w.Root, 0):
		return errors.New("workspace root contains a NUL byte")
	case !filepath.IsAbs(w.Root):
		return fmt.Errorf("workspace root %q is not absolute; pass an absolute directory", w.Root)
	case filepath.Clean(w.Root) != w.Root:
		return fmt.Errorf("workspace root %q is not clean; use %q", w.Root, filepath.Clean(w.Root))
	}
	return nil
}

// ResolvedPath is a path argument resolved lexically against a workspace.
type ResolvedPath struct {
	// Abs is the absolute, cleaned path.
	Abs string
	// Inside reports whether Abs is the root or lies under it.
	Inside bool
	// Rel is Abs relative to the root, slash-separated ("." for the root
	// itself); empty when the path is outside.
	Rel string
}

// Resolve joins a relative path to the root and cleans it; an absolute
// path is only cleaned. It does not touch the file system: symlinks are the
// plugin's os.Root boundary's business.
func (w Workspace) Resolve(p string) (ResolvedPath, error) {
	if err := w.validate(); err != nil {
		return ResolvedPath{}, err
	}
	if p == "" {
		return ResolvedPath{}, errors.New("path is empty")
	}
	if strings.ContainsRune(p, 0) {
		return ResolvedPath{}, errors.New("path contains a NUL byte")
	}
	// Join cleans what it joins: a relative path is cleaned once.
	var abs string
	if filepath.IsAbs(p) {
		abs = filepath.Clean(p)
	} else {
		abs = filepath.Join(w.Root, p)
	}
	rel, inside := within(w.Root, abs)
	return ResolvedPath{Abs: abs, Inside: inside, Rel: rel}, nil
}

// within reports whether the clean absolute path p is root or below it,
// comparing whole path elements: /ws-other is not inside /ws.
func within(root, p string) (rel string, inside bool) {
	if p == root {
		return ".", true
	}
	// root, then a separator unless root ends in one ("/"): compared in
	// place, not by building root+"/" on every call.
	if !strings.HasPrefix(p, root) {
		return "", false
	}
	rest := p[len(root):]
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		if rest == "" || rest[0] != filepath.Separator {
			return "", false
		}
		rest = rest[1:]
	}
	return filepath.ToSlash(rest), true
}
