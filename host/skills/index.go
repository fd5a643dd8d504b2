// Package skills gives the turn loop the skills index of the active core:
// the name and description of each skill under the skills root, bounded,
// for the model's instructions. The full text of a skill reaches the
// model only through skill_view.
package skills

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"demiurge.dev/shared/skillpath"
)

// DefaultIndexBytes bounds the index when the caller gives no bound.
const DefaultIndexBytes = 8 << 10

// minIndexBytes leaves room for the header and the closing note.
const minIndexBytes = 512

// maxIndexDescription bounds one skill's description in the index: the
// index says what a skill is for, skill_view says how.
const maxIndexDescription = 300

// maxNamedProblems bounds the broken skills the index names; their count
// is always exact.
const maxNamedProblems = 8

// Index is the skills index of root for the model's instructions: a
// header, one line per skill in name order ("- name: description"), and
// notes saying how many skills were left out for space and which
// directories are not usable skills (a broken SKILL.md is skipped with a
// note, never fatal). It is at most maxBytes long (DefaultIndexBytes when
// maxBytes <= 0). With no root, or no skills and nothing broken, it is "".
// It reads the files as they are now: the caller builds it once per turn,
// so a change by skill_manage shows from the next turn.
func Index(root string, maxBytes int) (string, error) {
	if root == "" {
		return "", nil
	}
	if maxBytes <= 0 {
		maxBytes = DefaultIndexBytes
	}
	maxBytes = max(maxBytes, minIndexBytes)
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", fmt.Errorf("skills root %s: %w", root, err)
	}
	defer r.Close()
	d, err := r.Open(".")
	if err != nil {
		return "", fmt.Errorf("skills root %s: %w", root, err)
	}
	entries, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return "", fmt.Errorf("skills root %s: %w", root, err)
	}
	slices.SortFunc(entries, func(a, b os.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })

	var lines, problems []string
	problemCount := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || e.Type().IsRegular() {
			continue
		}
		fm, err := readSkill(r, e)
		if err != nil {
			problemCount++
			if len(problems) < maxNamedProblems {
				problems = append(problems, fmt.Sprintf("%s (%v)", clip(name, 64), err))
			}
			continue
		}
		lines = append(lines, "- "+fm.Name+": "+clip(strings.Join(strings.Fields(fm.Description), " "), maxIndexDescription))
	}
	if len(lines) == 0 && problemCount == 0 {
		return "", nil
	}
	return render(lines, problems, problemCount, maxBytes), nil
}

// readSkill reads one skill directory's front matter: a valid name, a
// real directory (not a symlink), a regular SKILL.md reached without
// leaving the root.
func readSkill(r *os.Root, e os.DirEntry) (FrontMatter, error) {
	name := e.Name()
	if err := skillpath.ValidName(name); err != nil {
		return FrontMatter{}, errors.New("not a skill name")
	}
	if !e.IsDir() {
		return FrontMatter{}, errors.New("not a directory")
	}
	f, err := r.OpenFile(name+"/"+skillpath.FileName, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return FrontMatter{}, errors.New("no " + skillpath.FileName)
	}
	if err != nil {
		return FrontMatter{}, fmt.Errorf("%s cannot be opened", skillpath.FileName)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return FrontMatter{}, fmt.Errorf("%s is not a regular file", skillpath.FileName)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSkillFile+1))
	switch {
	case err != nil:
		return FrontMatter{}, fmt.Errorf("%s cannot be read", skillpath.FileName)
	case len(data) > MaxSkillFile:
		return FrontMatter{}, fmt.Errorf("%s is over %d bytes", skillpath.FileName, MaxSkillFile)
	}
	return ParseFrontMatter(name, data)
}

// render fits the lines into maxBytes with the header and notes.
func render(lines, problems []string, problemCount, maxBytes int) string {
	header := fmt.Sprintf("Skills: %d available. Each line names a skill and what it is for; before a task one of them fits, load it with skill_view(name) and follow it (skills_list lists them all).\n", len(lines))
	var problemNote string
	if problemCount > 0 {
		problemNote = fmt.Sprintf("%d skill director%s left out as unusable: %s", problemCount, plural(problemCount), strings.Join(problems, "; "))
		if problemCount > len(problems) {
			problemNote += fmt.Sprintf("; and %d more", problemCount-len(problems))
		}
		problemNote = clip(problemNote, 600) + "\n"
	}
	var b strings.Builder
	b.WriteString(header)
	shown := 0
	for _, l := range lines {
		// Room for this line, the "left out" note and the problem note.
		reserve := len(problemNote) + 120
		if b.Len()+len(l)+1+reserve > maxBytes {
			break
		}
		b.WriteString(l + "\n")
		shown++
	}
	if left := len(lines) - shown; left > 0 {
		fmt.Fprintf(&b, "(%d more skill%s not listed here for space; skills_list shows them.)\n", left, pluralS(left))
	}
	b.WriteString(problemNote)
	out := b.String()
	if len(out) > maxBytes {
		// Only a tiny bound cuts into the notes; never mid-character.
		out = strings.ToValidUTF8(out[:maxBytes], "")
	}
	return out
}

func plural(n int) string {
	if n == 1 {
		return "y"
	}
	return "ies"
}

func pluralS(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
