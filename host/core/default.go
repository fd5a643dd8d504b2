package core

import (
	_ "embed"
	"path/filepath"
	"sync"
)

// UserSkillsDir is the user's skills directory under the state directory:
// the skills root of the embedded default core when it exists (the host
// sets Core.SkillsRoot; Default has none).
func UserSkillsDir(stateDir string) string { return filepath.Join(stateDir, "skills") }

//go:embed default/agent.yaml
var defaultYAML []byte

var defaultCore = sync.OnceValue(func() *Core {
	c, err := parse(defaultYAML, EmbeddedFile, "")
	if err != nil {
		// The file is compiled in and TestDefault parses it: this is a
		// build defect, not an operator error.
		panic("core: the embedded default core is invalid: " + err.Error())
	}
	// The embedded core reads the workspace's AGENTS.md, as the
	// repository's seed core does (its pipelines.yaml).
	c.Pipelines = DefaultPipelines()
	c.Pipelines.Bootstrap = []Group{{ProjectInstructions}}
	return c
})

// Default returns the embedded default core, used when no core directory
// is given: the built-in toolsets implemented so far (coding and
// demiurge_control; schedule has no plugin yet) and the grants they need,
// no slots and no workspace (the caller's current directory is the
// workspace). Each call returns a fresh copy.
func Default() *Core { return defaultCore().clone() }
