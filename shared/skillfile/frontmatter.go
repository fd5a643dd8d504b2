// Package skillfile reads a SKILL.md's front matter: one reader for the
// host's skills index and the coding toolset's skills_list and
// skill_view, so that the index the model is given and the file it views
// agree on every name and description, and refuse the same files.
package skillfile

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"demiurge.dev/shared/hiddentext"
)

// MaxDescription bounds a skill's description, as the Agent Skills format
// does (1024 characters).
const MaxDescription = 1024

// MaxSkillFile bounds SKILL.md: its whole text goes to the model through
// skill_view, and the index reads the front matter of every skill.
const MaxSkillFile = 256 << 10

// FrontMatter is what the index and skills_list need of a SKILL.md; its
// other fields (license, metadata, allowed-tools, ...) are kept in the
// file as they are and not interpreted.
type FrontMatter struct {
	Name        string
	Description string
}

// Parse reads the YAML front matter at the start of a SKILL.md: a "---"
// line, a YAML mapping, a "---" line. name and description must be
// non-empty strings, each given once.
func Parse(data []byte) (FrontMatter, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || strings.TrimRight(string(first), "\r ") != "---" {
		return FrontMatter{}, errors.New("SKILL.md has no front matter: it must start with a \"---\" line, then YAML with name and description, then \"---\"")
	}
	var block []byte
	closed := false
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte("\n"))
		if strings.TrimRight(string(line), "\r ") == "---" {
			closed = true
			break
		}
		block = append(append(block, line...), '\n')
	}
	if !closed {
		return FrontMatter{}, errors.New("SKILL.md's front matter is not closed: add a \"---\" line after the YAML")
	}
	// Read as a node tree, never decoded into Go values: decoding checks
	// every key against the ones before it, so a front matter of a few
	// thousand repeated keys (a 40 KiB SKILL.md) took seconds and 200 KiB
	// took minutes, at the start of every turn. The tree is built in
	// linear time and only name and description are read from it.
	var doc yaml.Node
	if err := yaml.Unmarshal(block, &doc); err != nil {
		return FrontMatter{}, fmt.Errorf("SKILL.md's front matter is not valid YAML: %v", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return FrontMatter{}, errors.New("SKILL.md's front matter must be a YAML mapping with name and description")
	}
	var fm FrontMatter
	m := doc.Content[0]
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		var dst *string
		switch k.Value {
		case "name":
			dst = &fm.Name
		case "description":
			dst = &fm.Description
		default:
			continue
		}
		// Two of them would let a reader of the file and the model see
		// different texts.
		if seen[k.Value] {
			return FrontMatter{}, fmt.Errorf("SKILL.md's front matter gives %s twice (line %d); keep one", k.Value, k.Line+1)
		}
		seen[k.Value] = true
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str" {
			return FrontMatter{}, fmt.Errorf("SKILL.md's front matter field %s must be a string (line %d)", k.Value, v.Line+1)
		}
		*dst = strings.TrimSpace(v.Value)
	}
	switch {
	case fm.Name == "":
		return FrontMatter{}, errors.New("SKILL.md's front matter has no name")
	case fm.Description == "":
		return FrontMatter{}, errors.New("SKILL.md's front matter has no description; say what the skill does and when to use it")
	case len([]rune(fm.Description)) > MaxDescription:
		return FrontMatter{}, fmt.Errorf("SKILL.md's description is %d characters; at most %d", len([]rune(fm.Description)), MaxDescription)
	}
	return fm, nil
}

// Validate checks a whole SKILL.md for the skill directory dir: bounded,
// with front matter whose name is the directory's.
func Validate(dir string, data []byte) (FrontMatter, error) {
	if len(data) > MaxSkillFile {
		return FrontMatter{}, fmt.Errorf("SKILL.md is %d bytes; at most %d (move detail to references/)", len(data), MaxSkillFile)
	}
	if err := noHiddenText(data); err != nil {
		return FrontMatter{}, err
	}
	fm, err := Parse(data)
	if err != nil {
		return fm, err
	}
	if fm.Name != dir {
		return fm, fmt.Errorf("SKILL.md's name %q differs from its directory %q; they must be the same", clip(fm.Name), dir)
	}
	return fm, nil
}

func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}

// noHiddenText refuses a SKILL.md holding a Unicode tag character
// (U+E0000–U+E007F) or a bidi embedding, override or isolate control
// anywhere: its description goes to the model's instructions (the index)
// and its body to the model (skill_view), and those characters spell text
// the model reads and a terminal shows as nothing (a cat of the file), or
// show the operator other text than the model reads.
func noHiddenText(data []byte) error {
	line := 1
	for _, r := range string(data) {
		switch {
		case r == '\n':
			line++
		case hiddentext.Is(r):
			return fmt.Errorf("SKILL.md holds U+%04X on line %d, an invisible character (a Unicode tag character or a bidi control) that would make the model read what the operator cannot see; remove it", r, line)
		}
	}
	return nil
}
