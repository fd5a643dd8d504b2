package skills

import "demiurge.dev/shared/skillfile"

// The front matter is read by shared/skillfile, the reader the host's
// skills index uses too: the list and the index agree on every name and
// description and refuse the same files.

// MaxDescription and MaxSkillFile are skillfile's bounds.
const (
	MaxDescription = skillfile.MaxDescription
	MaxSkillFile   = skillfile.MaxSkillFile
)

// FrontMatter is what skills_list and the index need of a SKILL.md.
type FrontMatter = skillfile.FrontMatter

// Validate checks a whole SKILL.md for the skill directory dir
// (skillfile.Validate).
func Validate(dir string, data []byte) (FrontMatter, error) { return skillfile.Validate(dir, data) }

func clip(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:80]) + "…"
	}
	return s
}
