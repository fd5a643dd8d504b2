// Package skillpath holds the rules for naming skills and their files in
// the Agent Skills layout (<root>/<name>/SKILL.md plus the support
// directories references/, templates/, scripts/ and assets/). The host
// applies them before approval, to derive the path a skill call touches;
// the coding toolset applies them again before it touches anything.
package skillpath

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// FileName is a skill's main file.
const FileName = "SKILL.md"

// MaxNameLength and MaxPathLength bound a skill's name and a support
// file's path.
const (
	MaxNameLength = 64
	MaxPathLength = 512
)

// SupportDirs are the directories a skill's linked files live under.
var SupportDirs = []string{"references", "templates", "scripts", "assets"}

// Actions of skill_manage.
const (
	ActionCreate     = "create"
	ActionUpdate     = "update"
	ActionPatch      = "patch"
	ActionWriteFile  = "write_file"
	ActionRemoveFile = "remove_file"
	ActionDelete     = "delete"
)

// Actions lists skill_manage's actions.
var Actions = []string{ActionCreate, ActionUpdate, ActionPatch, ActionWriteFile, ActionRemoveFile, ActionDelete}

// ValidName says why name cannot be a skill's name: as the Agent Skills
// format has it, 1-64 lowercase letters, digits and hyphens, not starting
// or ending with a hyphen and without "--". A name is one directory, so
// "/", "." and ".." can never be one.
func ValidName(name string) error {
	switch {
	case name == "":
		return errors.New("the skill name is empty")
	case len(name) > MaxNameLength:
		return fmt.Errorf("the skill name is %d characters; at most %d", len(name), MaxNameLength)
	case strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") || strings.Contains(name, "--"):
		return fmt.Errorf("skill name %q must not start or end with '-' or hold \"--\"", name)
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("skill name %q may hold only lowercase letters, digits and '-' (no '/', '.', or spaces)", clip(name))
		}
	}
	return nil
}

// SupportPath says why p cannot be a support file of a skill: it must be
// a relative slash path under one of SupportDirs, with no absolute form,
// no "." or ".." and no hidden (dot) segment, no empty segment, no
// backslash and no control character.
func SupportPath(p string) error {
	switch {
	case p == "":
		return errors.New("file_path is empty")
	case len(p) > MaxPathLength:
		return fmt.Errorf("file_path is %d bytes; at most %d", len(p), MaxPathLength)
	case strings.HasPrefix(p, "/"):
		return fmt.Errorf("file_path %q is absolute; give a path inside the skill, e.g. references/notes.md", clip(p))
	case strings.ContainsRune(p, '\\'):
		return fmt.Errorf("file_path %q holds a backslash; use '/' between segments", clip(p))
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("file_path %q holds a control character", clip(p))
		}
	}
	segs := strings.Split(p, "/")
	for _, s := range segs {
		switch {
		case s == "":
			return fmt.Errorf("file_path %q has an empty segment", clip(p))
		case s == "..":
			return fmt.Errorf("file_path %q climbs with \"..\"; a skill's files stay inside the skill", clip(p))
		case s == ".":
			return fmt.Errorf("file_path %q holds a \".\" segment; write the path without it", clip(p))
		case strings.HasPrefix(s, "."):
			return fmt.Errorf("file_path %q has a hidden segment %q; hidden files are not part of a skill", clip(p), clip(s))
		}
	}
	if !slices.Contains(SupportDirs, segs[0]) {
		return fmt.Errorf("file_path %q is not under %s/; a skill's files live under %s", clip(p), strings.Join(SupportDirs, "/, "), strings.Join(SupportDirs, ", "))
	}
	if len(segs) < 2 {
		return fmt.Errorf("file_path %q names the directory itself; name a file under it", clip(p))
	}
	if path.Clean(p) != p {
		return fmt.Errorf("file_path %q is not clean", clip(p))
	}
	return nil
}

// Target is what one skill call touches, relative to the skills root
// (slash-separated): a file, or with Dir the whole skill directory.
type Target struct {
	Rel   string
	Write bool
	Dir   bool
}

// Resolve derives the target of a skill call: action is skill_manage's
// ("" for a read, skill_view's), filePath is "" for SKILL.md. Every
// refusal happens here, before any approval: a bad name, a bad file path,
// a file path an action does not take or one it needs and lacks.
func Resolve(action, name, filePath string) (Target, error) {
	if err := ValidName(name); err != nil {
		return Target{}, err
	}
	file := func() (Target, error) {
		if filePath == "" {
			return Target{Rel: name + "/" + FileName}, nil
		}
		if err := SupportPath(filePath); err != nil {
			return Target{}, err
		}
		return Target{Rel: name + "/" + filePath}, nil
	}
	var t Target
	var err error
	switch action {
	case "":
		return file()
	case ActionCreate, ActionUpdate:
		if filePath != "" {
			return Target{}, fmt.Errorf("%s writes the whole %s and takes no file_path; use write_file for support files", action, FileName)
		}
		t = Target{Rel: name + "/" + FileName}
	case ActionPatch:
		t, err = file()
	case ActionWriteFile, ActionRemoveFile:
		if filePath == "" {
			return Target{}, fmt.Errorf("%s needs file_path, a file under %s; %s itself is written with create or update", action, strings.Join(SupportDirs, "/, ")+"/", FileName)
		}
		t, err = file()
	case ActionDelete:
		if filePath != "" {
			return Target{}, errors.New("delete removes the whole skill and takes no file_path; use remove_file for one support file")
		}
		t = Target{Rel: name, Dir: true}
	default:
		return Target{}, fmt.Errorf("unknown action %q; want one of %s", clip(action), strings.Join(Actions, ", "))
	}
	if err != nil {
		return Target{}, err
	}
	t.Write = true
	return t, nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}
