package core

import (
	"slices"

	"go.yaml.in/yaml/v3"
)

// knownToolsets are the built-in toolset names an agent core may declare,
// as the Tools reference lists them. Whether a toolset's plugin is
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
		if !slices.Contains(knownToolsets, name) {
			return nil, d.errorf(items[i], itemField(field, i), "%s", unknownMsg("toolset", name, "known toolsets", knownToolsets))
		}
	}
	return names, nil
}
