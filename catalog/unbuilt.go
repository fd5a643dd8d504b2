package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// Unbuilt is a tool the Tools reference (seed 000) lists that this build
// does not implement. It has no catalog entry, no registry metadata and
// no capability the host accepts: a core that names it, its toolset or
// its capability is refused at load, and the operator's listing says it
// is missing rather than leaving it to be guessed.
type Unbuilt struct {
	Toolset string `json:"toolset"`
	Tool    string `json:"tool"`
	// Capability is the singular capability the reference gives the
	// tool, which the host refuses to grant while the tool does not exist.
	Capability string `json:"capability,omitempty"`
}

// unbuilt is kept by hand: a tool leaves this list in the change that
// makes it work, together with its registry metadata. Every tool of the
// reference is built now (evolve_core was the last); the list stays, so
// that a reference tool added later is refused until it works.
var unbuilt []Unbuilt

// SetUnbuiltForTest replaces the list with a stand-in and returns what
// restores it: with every reference tool built, the loaders' refusal of
// an unbuilt one is tested against a stand-in. Tests only.
func SetUnbuiltForTest(list []Unbuilt) (restore func()) {
	old := unbuilt
	unbuilt = slices.Clone(list)
	return func() { unbuilt = old }
}

// UnbuiltTools lists the reference tools this build lacks.
func UnbuiltTools() []Unbuilt { return slices.Clone(unbuilt) }

// UnbuiltTool reports whether name is a reference tool this build lacks.
func UnbuiltTool(name string) (Unbuilt, bool) {
	for _, u := range unbuilt {
		if u.Tool == name {
			return u, true
		}
	}
	return Unbuilt{}, false
}

// UnbuiltCapability reports the reference tool whose capability grant is
// name, when that tool is not built.
func UnbuiltCapability(name string) (Unbuilt, bool) {
	for _, u := range unbuilt {
		if u.Capability != "" && u.Capability == name {
			return u, true
		}
	}
	return Unbuilt{}, false
}

// UnbuiltToolset reports whether every tool of the reference toolset name
// is missing from this build, and which tools those are.
func UnbuiltToolset(name string) ([]string, bool) {
	var tools []string
	for _, u := range unbuilt {
		if u.Toolset == name {
			tools = append(tools, u.Tool)
		}
	}
	return tools, len(tools) > 0 && !builtToolsets[name]
}

// builtToolsets are the reference toolsets that have a plugin in this
// build (some of their tools may still be unbuilt).
var builtToolsets = map[string]bool{"coding": true, "demiurge_control": true, "schedule": true}

// unbuiltLine is the operator's line about what this catalog lacks.
func unbuiltLine() string {
	if len(unbuilt) == 0 {
		return ""
	}
	byToolset := map[string][]string{}
	var order []string
	for _, u := range unbuilt {
		if byToolset[u.Toolset] == nil {
			order = append(order, u.Toolset)
		}
		byToolset[u.Toolset] = append(byToolset[u.Toolset], u.Tool)
	}
	var parts []string
	for _, ts := range order {
		parts = append(parts, fmt.Sprintf("%s (%s)", strings.Join(byToolset[ts], ", "), ts))
	}
	return fmt.Sprintf("not in this build: %s; the Tools reference lists them, but they have no implementation yet, so no core can declare or grant them\n", strings.Join(parts, "; "))
}
