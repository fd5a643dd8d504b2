package catalog

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestParseDisplayMode(t *testing.T) {
	for in, want := range map[string]DisplayMode{"quiet": DisplayQuiet, "Summary": DisplaySummary, " full": DisplayFull} {
		if got, err := ParseDisplayMode(in); err != nil || got != want {
			t.Errorf("ParseDisplayMode(%q) = %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "verbose", "all"} {
		if _, err := ParseDisplayMode(in); err == nil || !strings.Contains(err.Error(), "quiet, summary or full") {
			t.Errorf("ParseDisplayMode(%q) error = %v, want the valid modes listed", in, err)
		}
	}
}

func displayCatalog(t *testing.T) *Catalog {
	return mustResolve(t, baseSources(), map[string]Override{
		"read_file":    {Risk: ptr(RiskHigh), Capability: ptr("tool.call:read_file")},
		"write_file":   {ApprovalPolicy: ptr(ApprovalAuto), Origin: "agent.yaml:3"},
		"project_note": {Enabled: ptr(false)},
		"nope":         {Origin: "agent.yaml:9"},
	})
}

// Listings are sorted by name (the CLI's one order for lists), whatever
// the catalog's own order (the model's).
func TestDisplayQuiet(t *testing.T) {
	if got, want := displayCatalog(t).Display(DisplayQuiet), "docs__search\nread_file\nwrite_file\n"; got != want {
		t.Errorf("quiet display = %q, want %q", got, want)
	}
}

func TestDisplaySummary(t *testing.T) {
	want := "" +
		"NAME          SOURCE          RISK    APPROVAL  DESCRIPTION\n" +
		"docs__search  mcp:docs        medium  prompt    Search the docs.\n" +
		"read_file     builtin:coding  high    auto      Read a text file.\n" +
		"write_file    builtin:coding  high    prompt    Write a file.\n" +
		"(1 disabled, 2 diagnostics: --tool-display full shows them)\n"
	if got := displayCatalog(t).Display(DisplaySummary); got != want {
		t.Errorf("summary display:\n%s\nwant:\n%s", got, want)
	}
	empty := mustResolve(t, nil, nil)
	if got := empty.Display(DisplaySummary); got != "no tools\n" {
		t.Errorf("empty summary = %q", got)
	}
}

func TestDisplayFull(t *testing.T) {
	got := displayCatalog(t).Display(DisplayFull)
	for _, want := range []string{
		"read_file\n  description:         Read a text file.\n                       More detail.\n",
		`  source:              builtin toolset "coding" (plugin demiurge-coding 0.1.0)`,
		"  effect:              read\n",
		"  risk:                high (registry low, raised by tools.metadata)\n",
		"  approval:            auto\n",
		"  requires:            fs.read, tool.call:read_file\n",
		`  subjects:            path: argument "path", read`,
		"  openai strict:       no\n                       - #: property \"offset\" is optional",
		"  schema:\n    {\n      \"additionalProperties\": false,",
		"write_file\n",
		"  openai strict:       yes\n",
		`    warning: tools.metadata.write_file.approval_policy: "auto" would weaken the registry approval policy "prompt"`,
		`(agent.yaml:3)`,
		`  source:              MCP server "docs" declared in agent/mcp/docs.yaml`,
		"disabled by tools.metadata: project_note\n",
		"diagnostics:\n  warning: tools.metadata names tool \"nope\"",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("full display lacks %q\n---\n%s", want, got)
		}
	}
	if strings.Contains(got, "project_note\n  description") {
		t.Error("full display shows the disabled tool")
	}
}

func TestEntryDetail(t *testing.T) {
	c := displayCatalog(t)
	e, _ := c.Lookup("write_file")
	d := e.Detail()
	if !strings.HasPrefix(d, "write_file\n  description:         Write a file.\n") || strings.Contains(d, "read_file") {
		t.Errorf("Detail() =\n%s", d)
	}
	if !strings.Contains(c.Display(DisplayFull), d) {
		t.Error("Detail() differs from the entry's part of the full display")
	}
	if strings.Contains(d, "precheck") {
		t.Error("Detail() mentions a precheck the tool does not have")
	}
	sources := baseSources()
	sources[0].Tools[1].Precheck = true
	w, _ := mustResolve(t, sources, nil).Lookup("write_file")
	if !strings.Contains(w.Detail(), "  precheck:            yes") || w.Summary()["precheck"] != true {
		t.Errorf("precheck not shown:\n%s", w.Detail())
	}
}

func TestDisplayEscapesSourceText(t *testing.T) {
	spec := mcpSpec("evil")
	spec.Description = "ok\x1b[2J\x1b]0;title\x07 \u202eesrever\nsecond\rline\n\nafter a blank line"
	spec.Provenance.Path = "agent/mcp/\x1b[31mred.yaml"
	c := mustResolve(t, []Source{{Kind: SourceMCP, Name: "docs\x1b", Tools: []ToolSpec{spec}}}, nil)
	for _, mode := range []DisplayMode{DisplayQuiet, DisplaySummary, DisplayFull} {
		out := c.Display(mode)
		if strings.ContainsAny(out, "\x1b\x07\r\u202e") {
			t.Errorf("%s display passes control characters through: %q", mode, out)
		}
	}
	full := c.Display(DisplayFull)
	for _, want := range []string{`ok\x1b[2J\x1b]0;title\x07 \u202eesrever`, `second\x0dline` + "\n\n" + strings.Repeat(" ", 23) + "after a blank line\n", `MCP server "docs\x1b"`} {
		if !strings.Contains(full, want) {
			t.Errorf("full display lacks escaped %q\n%s", want, full)
		}
	}
}

// TestDisplayShowsInvisibleText: what a terminal shows as nothing (tag
// characters, zero-width and other format characters, line separators)
// is shown escaped in every display, so the operator sees that the model
// reads more than the line shows; other scripts and emoji stay.
func TestDisplayShowsInvisibleText(t *testing.T) {
	spec := mcpSpec("evil")
	spec.Description = "note\U000E0049\U000E0047 zw\u200b\u200b fmt\u00ad sep\u2028end 日本語 ✓"
	c := mustResolve(t, []Source{{Kind: SourceMCP, Name: "docs", Tools: []ToolSpec{spec}}}, nil)
	full := c.Display(DisplayFull)
	for _, want := range []string{`note\U000e0049\U000e0047`, `zw\u200b\u200b`, `fmt\xad`, `sep\u2028end 日本語 ✓`} {
		if !strings.Contains(full, want) {
			t.Errorf("full display lacks escaped %q\n%s", want, full)
		}
	}
}

func TestEntrySummary(t *testing.T) {
	c := displayCatalog(t)
	e, _ := c.Lookup("read_file")
	b, err := json.Marshal(e.Summary())
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name": "read_file", "description": "Read a text file.\nMore detail.",
		"provenance": map[string]any{"kind": "builtin", "toolset": "coding", "plugin": "demiurge-coding", "version": "0.1.0"},
		"effect":     "read", "precheck": false, "risk": "high", "approval_policy": "auto", "capability": "fs.read",
		"required_capabilities": []any{"fs.read", "tool.call:read_file"}, "capabilities": []any{},
		"display_policy": "summary", "model_output_policy": "content",
		"registry": map[string]any{"risk": "low", "approval_policy": "auto", "capability": "fs.read"},
		"subjects": []any{map[string]any{"kind": "path", "arg": "path", "access": "read"}},
		"schema": map[string]any{"additionalProperties": false, "type": "object", "required": []any{"path"},
			"properties": map[string]any{"offset": map[string]any{"type": "integer"}, "path": map[string]any{"type": "string"}}},
		"strict_compatible": false,
		"strict_reasons":    []any{`#: property "offset" is optional; strict mode requires every property (make it nullable instead)`},
		"diagnostics":       []any{},
	}
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.MarshalIndent(got, "", " ")
		t.Errorf("Summary() =\n%s", gb)
	}

	w, _ := c.Lookup("write_file")
	ws := w.Summary()
	if d := ws["diagnostics"].([]Diagnostic); len(d) != 1 || d[0].Field != "approval_policy" {
		t.Errorf("write_file summary diagnostics = %+v", d)
	}
}

func TestCatalogSummary(t *testing.T) {
	c := displayCatalog(t)
	s := c.Summary()
	if tools := s["tools"].([]map[string]any); len(tools) != 3 || tools[2]["name"] != "docs__search" {
		t.Errorf("tools = %v", tools)
	}
	if !reflect.DeepEqual(s["disabled"], []string{"project_note"}) {
		t.Errorf("disabled = %v", s["disabled"])
	}
	if d := s["diagnostics"].([]Diagnostic); len(d) != 2 || d[1].Tool != "nope" {
		t.Errorf("diagnostics = %+v", d)
	}
	if s["fingerprint"] != c.Fingerprint() {
		t.Errorf("fingerprint = %v", s["fingerprint"])
	}
	if _, err := json.Marshal(s); err != nil {
		t.Fatal(err)
	}
}
