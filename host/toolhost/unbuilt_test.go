package toolhost

import (
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// The reference tools this build lacks have nothing behind them, so
// nothing may stand for them: no registry metadata, no catalog entry, and
// a core that names them, their toolset or their capability is refused.
func TestUnbuiltToolsHaveNoRegistryEntry(t *testing.T) {
	for _, u := range catalog.UnbuiltTools() {
		for ts, tools := range builtinRegistry {
			if _, ok := tools[u.Tool]; ok {
				t.Errorf("builtinRegistry[%s] has metadata for %s, which this build does not implement", ts, u.Tool)
			}
		}
	}
}

func TestUnbuiltToolsAreNotInTheCatalog(t *testing.T) {
	_, cat := resolved(t, "", t.TempDir())
	for _, u := range catalog.UnbuiltTools() {
		if _, ok := cat.Lookup(u.Tool); ok {
			t.Errorf("the default catalog has %s, which is listed as not built", u.Tool)
		}
	}
}

func TestCoreNamingUnbuiltToolsFailsLoading(t *testing.T) {
	defer catalog.SetUnbuiltForTest([]catalog.Unbuilt{{Toolset: "demiurge_control", Tool: "future_tool", Capability: "tool.call:future_tool"}})()
	for _, tc := range []struct{ yaml, want string }{
		{"toolsets: [coding]\ncapabilities:\n  - tool.call:future_tool\n", `agent.yaml:3:5: capabilities[0]: capability "tool.call:future_tool" is refused`},
		{"toolsets: [coding]\ncapabilities: [tool.call:future_tool]\n", "future_tool (toolset demiurge_control), which the Tools reference lists but this build does not implement yet"},
		{"toolsets: [demiurge_control]\ntools:\n  metadata:\n    future_tool: {risk: high}\n", "agent.yaml:4:5: tools.metadata.future_tool: future_tool is in the Tools reference"},
	} {
		_, err := open(t, writeCore(t, tc.yaml), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("core %q: err = %v, want it to contain %q", tc.yaml, err, tc.want)
		}
	}
}
