package skills

import "demiurge.dev/shared/skillfile"

// The front matter is read by shared/skillfile, the reader the coding
// toolset's skills_list and skill_view use too: the index the model is
// given and the files it views agree on every name and description.

// MaxDescription and MaxSkillFile are skillfile's bounds.
const (
	MaxDescription = skillfile.MaxDescription
	MaxSkillFile   = skillfile.MaxSkillFile
)

// FrontMatter is what the index needs of a SKILL.md.
type FrontMatter = skillfile.FrontMatter

// ParseFrontMatter reads the front matter of the SKILL.md of directory
// dir and checks that its name is dir (skillfile.Validate).
func ParseFrontMatter(dir string, data []byte) (FrontMatter, error) {
	return skillfile.Validate(dir, data)
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
