package catalog

import (
	"slices"
	"testing"
)

func TestEveryReferenceToolIsBuilt(t *testing.T) {
	if len(UnbuiltTools()) != 0 {
		t.Errorf("UnbuiltTools() = %v; every reference tool is built (evolve_core was the last)", UnbuiltTools())
	}
	if _, ok := UnbuiltTool("evolve_core"); ok {
		t.Error("evolve_core is reported as not built")
	}
}

func TestUnbuiltLookups(t *testing.T) {
	defer SetUnbuiltForTest([]Unbuilt{{Toolset: "demiurge_control", Tool: "future_tool", Capability: "tool.call:future_tool"}})()
	if tools, whole := UnbuiltToolset("schedule"); whole || len(tools) != 0 {
		t.Errorf("UnbuiltToolset(schedule) = %v, %v; want none, false (issue 28 built it)", tools, whole)
	}
	// demiurge_control has a plugin: some of its tools are missing, the
	// toolset is not.
	if tools, whole := UnbuiltToolset("demiurge_control"); whole || !slices.Equal(tools, []string{"future_tool"}) {
		t.Errorf("UnbuiltToolset(demiurge_control) = %v, %v; want [future_tool], false", tools, whole)
	}
	if _, whole := UnbuiltToolset("coding"); whole {
		t.Error("coding is reported as not built")
	}
	if u, ok := UnbuiltCapability("tool.call:future_tool"); !ok || u.Tool != "future_tool" {
		t.Errorf("UnbuiltCapability(tool.call:future_tool) = %+v, %v", u, ok)
	}
	if _, ok := UnbuiltCapability("schedule.manage"); ok {
		t.Error("schedule.manage is reported as the capability of an unbuilt tool")
	}
	if _, ok := UnbuiltCapability("fs.read"); ok {
		t.Error("fs.read is reported as the capability of an unbuilt tool")
	}
	if _, ok := UnbuiltCapability(""); ok {
		t.Error("the empty capability matches an unbuilt tool")
	}
	if u, ok := UnbuiltTool("future_tool"); !ok || u.Toolset != "demiurge_control" {
		t.Errorf("UnbuiltTool(future_tool) = %+v, %v", u, ok)
	}
	if _, ok := UnbuiltTool("read_file"); ok {
		t.Error("read_file is reported as not built")
	}
}
