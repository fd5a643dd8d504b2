package core

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"demiurge.dev/catalog"
)

// knownToolsets are the built-in toolset names of the Tools reference,
// reserved for them; a core may declare those this build implements
// (catalog.UnbuiltToolset says which are not). Whether a toolset's plugin is
// installed is the plugin manager's question, not the loader's.
var knownToolsets = []string{"coding", "demiurge_control", "schedule"}

// KnownToolsets returns the built-in toolset names, sorted.
func KnownToolsets() []string { return slices.Clone(knownToolsets) }

func (d *decoder) toolsets(n *yaml.Node, field string) ([]string, error) {
	names, items, err := d.strList(n, field, "toolset")
	if err != nil {
		return nil, err
	}
	for i, name := range names {
		if tools, unbuilt := catalog.UnbuiltToolset(name); unbuilt {
			// The name stays reserved, but a core that declares it would
			// read as if it had tools that are not there.
			return nil, d.errorf(items[i], itemField(field, i), "toolset %s is in the Tools reference, but this build does not implement it yet (its tools: %s); remove it",
				name, strings.Join(tools, ", "))
		}
		if slices.Contains(knownToolsets, name) {
			continue
		}
		// Any other well-formed name is an installed toolset (the host
		// checks that it is installed); one near a built-in is a typo.
		if catalog.Suggest(name, knownToolsets) != "" || catalog.ValidToolsetName(name) != nil {
			return nil, d.errorf(items[i], itemField(field, i), "%s", unknownMsg("toolset", name,
				"built-in toolsets", knownToolsets)+"; an installed toolset's name is lower case letters, digits and _")
		}
	}
	return names, nil
}
