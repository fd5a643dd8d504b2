package toolhost

import (
	"fmt"
	"os"
	"path/filepath"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
	"demiurge.dev/host/plugins"
)

// skillTools are the coding toolset's skill tools. The host gives them
// their subjects itself: what they touch is a file under the core's skills
// root, which only the host knows, so the plugin cannot declare it as a
// workspace path (policy/assess_skill.go).
var skillTools = map[string][]catalog.Subject{
	"skills_list":  nil,
	"skill_view":   {{Kind: catalog.SubjectSkill, Arg: "name", PathArg: "file_path"}},
	"skill_manage": {{Kind: catalog.SubjectSkill, Arg: "name", PathArg: "file_path", ActionArg: "action"}},
}

// defaultSkillsRoot gives the embedded core the user's skills directory
// when it is a real directory (not a symlink, which could lead anywhere);
// a core on disk has slots.skills or no skills.
func defaultSkillsRoot(c *core.Core, stateDir string) (string, error) {
	if c.Dir != "" && (!c.IsDefault() || c.SkillsRoot != "") {
		return c.SkillsRoot, nil
	}
	p := core.UserSkillsDir(stateDir)
	fi, err := os.Lstat(p)
	switch {
	case os.IsNotExist(err):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("skills directory %s: %w", p, err)
	case fi.Mode()&os.ModeSymlink != 0:
		return "", fmt.Errorf("skills directory %s is a symlink; make it a directory (the embedded core reads skills only from the state directory itself)", p)
	case !fi.IsDir():
		return "", fmt.Errorf("skills directory %s is not a directory", p)
	}
	return filepath.EvalSymlinks(p)
}

// withSkillTools gives the built-in coding toolset's skill tools their
// host-derived subjects, and leaves them out when the core has no skills
// root: no skills, no skill tools.
func withSkillTools(src catalog.Source, c plugins.Candidate, skillsRoot string) catalog.Source {
	if c.Origin != plugins.OriginBuiltin || c.Name != "coding" {
		return src
	}
	tools := make([]catalog.ToolSpec, 0, len(src.Tools))
	for _, t := range src.Tools {
		subjects, isSkill := skillTools[t.Name]
		if isSkill {
			if skillsRoot == "" {
				continue
			}
			t.Subjects = subjects
		}
		tools = append(tools, t)
	}
	src.Tools = tools
	return src
}
