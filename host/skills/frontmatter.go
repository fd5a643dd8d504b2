package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// MaxDescription bounds a skill's description (the Agent Skills format's
// 1024 characters); MaxSkillFile bounds the SKILL.md read for its front
// matter. The coding toolset applies the same rules to what it lists.
const (
	MaxDescription = 1024
	MaxSkillFile   = 256 << 10
)

// FrontMatter is what the index needs of a SKILL.md; other fields are not
// interpreted.
type FrontMatter struct {
	Name        string
	Description string
}

// ParseFrontMatter reads the YAML front matter at the start of a SKILL.md
// ("---", a YAML mapping, "---") and checks that its name is dir and that
// it has a description.
func ParseFrontMatter(dir string, data []byte) (FrontMatter, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	first, rest, ok := bytes.Cut(data, []byte("\n"))
	if !ok || strings.TrimRight(string(first), "\r ") != "---" {
		return FrontMatter{}, errors.New("no front matter (the file must start with a \"---\" line)")
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
		return FrontMatter{}, errors.New("the front matter is not closed by a \"---\" line")
	}
	// Read as a node tree, never decoded into Go values: decoding checks
	// every key against the ones before it, so a front matter of a few
	// thousand repeated keys (a 40 KiB SKILL.md) took seconds and 200 KiB
	// took minutes, at the start of every turn. The tree is built in
	// linear time and only name and description are read from it.
	var doc yaml.Node
	if err := yaml.Unmarshal(block, &doc); err != nil {
		return FrontMatter{}, fmt.Errorf("the front matter is not a YAML mapping: %v", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return FrontMatter{}, errors.New("the front matter is not a YAML mapping")
	}
	var fm struct{ Name, Description any }
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		var dst *any
		switch k.Value {
		case "name":
			dst = &fm.Name
		case "description":
			dst = &fm.Description
		default:
			continue
		}
		if *dst != nil {
			return FrontMatter{}, fmt.Errorf("the front matter gives %s twice (line %d of SKILL.md); one text is what the index and skill_view agree on", k.Value, k.Line+1)
		}
		*dst = false // present, not yet a string
		if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!str" {
			*dst = v.Value
		}
	}
	name, nameOK := fm.Name.(string)
	desc, descOK := fm.Description.(string)
	name, desc = strings.TrimSpace(name), strings.TrimSpace(desc)
	switch {
	case !nameOK || name == "":
		return FrontMatter{}, errors.New("the front matter has no name")
	case name != dir:
		return FrontMatter{}, fmt.Errorf("its name %q differs from its directory", clip(name, 64))
	case !descOK || desc == "":
		return FrontMatter{}, errors.New("the front matter has no description")
	case len([]rune(desc)) > MaxDescription:
		return FrontMatter{}, fmt.Errorf("its description is over %d characters", MaxDescription)
	}
	return FrontMatter{Name: name, Description: desc}, nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
