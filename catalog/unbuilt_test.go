package catalog

import (
	"slices"
	"testing"
)

func TestUnbuiltLookups(t *testing.T) {
	if tools, whole := UnbuiltToolset("schedule"); whole || len(tools) != 0 {
		t.Errorf("UnbuiltToolset(schedule) = %v, %v; want none, false (issue 28 built it)", tools, whole)
	}
	// demiurge_control has a plugin: some of its tools are missing, the
	// toolset is not.
	if tools, whole := UnbuiltToolset("demiurge_control"); whole || !slices.Equal(tools, []string{"evolve_core"}) {
		t.Errorf("UnbuiltToolset(demiurge_control) = %v, %v; want [evolve_core], false", tools, whole)
	}
	if _, whole := UnbuiltToolset("coding"); whole {
		t.Error("coding is reported as not built")
	}
	if u, ok := UnbuiltCapability("tool.call:evolve_core"); !ok || u.Tool != "evolve_core" {
		t.Errorf("UnbuiltCapability(tool.call:evolve_core) = %+v, %v", u, ok)
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
	if u, ok := UnbuiltTool("evolve_core"); !ok || u.Toolset != "demiurge_control" {
		t.Errorf("UnbuiltTool(evolve_core) = %+v, %v", u, ok)
	}
	if _, ok := UnbuiltTool("read_file"); ok {
		t.Error("read_file is reported as not built")
	}
}
