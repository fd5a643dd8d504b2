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
	var fm struct {
		Name        any `yaml:"name"`
		Description any `yaml:"description"`
	}
	if err := yaml.Unmarshal(block, &fm); err != nil {
		return FrontMatter{}, fmt.Errorf("the front matter is not a YAML mapping: %v", err)
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
