package dispatch

import (
	"regexp"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// controlSource is the real demiurge_control plugin with the registry's
// metadata for its tools.
func (h *harness) controlSource(t testing.TB) catalog.Source {
	return h.source(t, "demiurge_control", func(tool string) catalog.Metadata {
		m := catalog.Metadata{Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto}
		if tool == "task_control" {
			m.Capability = "terminal.exec"
		}
		return m
	})
}

// tools_list answers from the calling turn's own catalog: two turns over
// the same plugin process see their own tools, with the effective policy
// their catalogs resolved.
func TestToolsListShowsTheCallingTurnsCatalog(t *testing.T) {
	h := newHarness(t)
	control := h.controlSource(t)
	strictWrite := func(tool string) catalog.Metadata {
		m := codingMeta(tool)
		if tool == "write_file" {
			m.ApprovalPolicy = catalog.ApprovalDeny
		}
		return m
	}
	coding := h.turn(t, []string{"fs.read"}, nil, h.source(t, "coding", strictWrite), control)
	fixture := h.turn(t, []string{"fs.read"}, nil, h.source(t, "fixture", autoMeta), control)

	out := callTool(coding, "tools_list", `{}`)
	if !out.OK() {
		t.Fatalf("tools_list = %s %q", out.Status, out.Views.Model.String())
	}
	for _, want := range []string{
		`(?m)^NAME +SOURCE +RISK +APPROVAL +DESCRIPTION$`,
		`(?m)^read_file +builtin:coding +low +auto +\S`,
		`(?m)^write_file +builtin:coding +medium +deny +\S`,
		`(?m)^tools_list +builtin:demiurge_control +low +auto +List the tools`,
		`(?m)^task_control +builtin:demiurge_control +low +auto +\S`,
	} {
		if !regexp.MustCompile(want).MatchString(out.Views.Model.String()) {
			t.Errorf("the coding turn's tools_list lacks %s:\n%s", want, out.Views.Model.String())
		}
	}
	if strings.Contains(out.Views.Model.String(), "echo") {
		t.Errorf("the coding turn's tools_list shows another turn's tool:\n%s", out.Views.Model.String())
	}

	out = callTool(fixture, "tools_list", `{"mode":"quiet"}`)
	names := strings.Fields(out.Views.Model.String())
	if !out.OK() || !strings.Contains(out.Views.Model.String(), "echo\n") || strings.Contains(out.Views.Model.String(), "read_file") || len(names) != len(fixture.Catalog.Entries()) {
		t.Errorf("the fixture turn's quiet tools_list = %s %q; want its %d tools only", out.Status, out.Views.Model.String(), len(fixture.Catalog.Entries()))
	}

	out = callTool(coding, "tools_list", `{"mode":"full"}`)
	for _, want := range []string{"write_file\n  source: builtin:coding\n  effect: write\n  risk: medium\n  approval: deny\n  requires: fs.write\n",
		"task_control\n  source: builtin:demiurge_control\n", "  requires: terminal.exec\n"} {
		if !strings.Contains(out.Views.Model.String(), want) {
			t.Errorf("the full tools_list lacks %q:\n%s", want, out.Views.Model.String())
		}
	}
	if strings.Contains(out.Views.Model.String(), `"type"`) {
		t.Errorf("the full tools_list repeats schemas:\n%s", out.Views.Model.String())
	}
}
