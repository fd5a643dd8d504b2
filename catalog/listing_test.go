package catalog

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestWriteList(t *testing.T) {
	defer SetUnbuiltForTest([]Unbuilt{{Toolset: "demiurge_control", Tool: "future_tool", Capability: "tool.call:future_tool"}})()
	c := displayCatalog(t)
	empty := mustResolve(t, nil, nil)
	tests := []struct {
		name string
		cat  *Catalog
		opts ListOptions
		want func(out string) bool
	}{
		{"display quiet", c, ListOptions{Mode: DisplayQuiet}, func(out string) bool { return out == c.Display(DisplayQuiet) }},
		{"display full", c, ListOptions{Mode: DisplayFull}, func(out string) bool { return out == c.Display(DisplayFull)+unbuiltLine() }},
		{"display summary names what the build lacks", c, ListOptions{Mode: DisplaySummary}, func(out string) bool {
			return strings.HasSuffix(out, "\nnot in this build: future_tool (demiurge_control); the Tools reference lists them, but they have no implementation yet, so no core can declare or grant them\n")
		}},
		{"provider wins over json", c, ListOptions{Provider: ProviderAnthropic, JSON: true}, func(out string) bool {
			return strings.HasPrefix(out, "[\n  {\n    \"description\"") && strings.Contains(out, `"input_schema"`)
		}},
		{"json summaries", c, ListOptions{JSON: true, Mode: DisplayQuiet}, func(out string) bool {
			var v []map[string]any
			return json.Unmarshal([]byte(out), &v) == nil && len(v) == 3+len(unbuilt) && v[0]["name"] == "docs__search" && v[1]["name"] == "read_file" &&
				v[3]["name"] == "future_tool" && v[3]["not_built"] == true && strings.HasSuffix(out, "}\n]\n")
		}},
		{"json of no tools lists only what the build lacks", empty, ListOptions{JSON: true}, func(out string) bool {
			var v []map[string]any
			return json.Unmarshal([]byte(out), &v) == nil && len(v) == len(unbuilt) && v[0]["not_built"] == true
		}},
		{"definitions of no tools are []", empty, ListOptions{Provider: ProviderOpenAI}, func(out string) bool { return out == "[]\n" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			if err := tt.cat.WriteList(&b, tt.opts); err != nil {
				t.Fatal(err)
			}
			if !tt.want(b.String()) {
				t.Errorf("output:\n%s", b.String())
			}
		})
	}
	var b strings.Builder
	if err := c.WriteList(&b, ListOptions{Provider: "openia"}); err == nil {
		t.Error("an unknown provider rendered")
	}
}

func TestWriteListKeepsHTMLCharacters(t *testing.T) {
	src := baseSources()
	src[0].Tools[0].Description = "Reads <file> & more"
	var b strings.Builder
	if err := mustResolve(t, src, nil).WriteList(&b, ListOptions{JSON: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Reads <file> & more") {
		t.Errorf("HTML characters escaped:\n%s", b.String())
	}
}

func TestWriteNotes(t *testing.T) {
	var b strings.Builder
	displayCatalog(t).WriteNotes(&b, []string{"coding/x declares no effect; taken as exec"})
	out := b.String()
	if !strings.HasPrefix(out, "warning: coding/x declares no effect; taken as exec\n") {
		t.Errorf("warnings first, prefixed: %q", out)
	}
	if !strings.Contains(out, "\nwarning: tools.metadata names tool \"nope\"") {
		t.Errorf("diagnostics as level: message lines: %q", out)
	}
}
