package catalog

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

const readFileSchema = `{"type":"object","additionalProperties":false,"required":["path"],
  "properties":{"path":{"type":"string"},"offset":{"type":"integer"}}}`

func readFileSpec() ToolSpec {
	return ToolSpec{
		Name: "read_file", Description: "Read a text file.\nMore detail.",
		InputSchema: json.RawMessage(readFileSchema),
		Metadata:    Metadata{Risk: RiskLow, Capability: "fs.read", ApprovalPolicy: ApprovalAuto, DisplayPolicy: "summary", ModelOutputPolicy: "content"},
		Effect:      EffectRead,
		Subjects:    []Subject{{Kind: SubjectPath, Arg: "path", Access: AccessRead}},
		Provenance:  Provenance{Plugin: "demiurge-coding", Version: "0.1.0"},
	}
}

func writeFileSpec() ToolSpec {
	return ToolSpec{
		Name: "write_file", Description: "Write a file.",
		InputSchema: json.RawMessage(`{"type":"object","additionalProperties":false,"required":["path","content"],
		  "properties":{"path":{"type":"string"},"content":{"type":"string"}}}`),
		Metadata:   Metadata{Risk: RiskHigh, Capability: "fs.write", ApprovalPolicy: ApprovalPrompt},
		Effect:     EffectWrite,
		Subjects:   []Subject{{Kind: SubjectPath, Arg: "path", Access: AccessWrite}},
		Provenance: Provenance{Plugin: "demiurge-coding", Version: "0.1.0"},
	}
}

func mcpSpec(name string) ToolSpec {
	return ToolSpec{
		Name: name, Description: "Search the docs.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}}}`),
		Metadata:    Metadata{Risk: RiskMedium, Capability: "mcp.call:docs", ApprovalPolicy: ApprovalPrompt},
		Effect:      EffectNetwork,
		Provenance:  Provenance{Path: "agent/mcp/docs.yaml"},
	}
}

func authoredSpec(name string) ToolSpec {
	return ToolSpec{
		Name: name, Description: "A project note.", Effect: EffectWrite,
		Metadata:   Metadata{Risk: RiskMedium, ApprovalPolicy: ApprovalPrompt},
		Provenance: Provenance{Path: "agent/tools/" + name + "/tool.yaml"},
	}
}

type binding struct{ id string }

func baseSources() []Source {
	return []Source{
		{Kind: SourceBuiltin, Name: "coding", Tools: []ToolSpec{readFileSpec(), writeFileSpec()}, Binding: &binding{"coding"}},
		{Kind: SourceAuthored, Name: "agent/tools", Tools: []ToolSpec{authoredSpec("project_note")}, Binding: &binding{"authored"}},
		{Kind: SourceMCP, Name: "docs", Tools: []ToolSpec{mcpSpec("docs__search")}, Binding: &binding{"docs"}},
	}
}

func ptr[T any](v T) *T { return &v }

func mustResolve(t *testing.T, sources []Source, overrides map[string]Override) *Catalog {
	t.Helper()
	c, err := Resolve(sources, overrides)
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return c
}

func TestResolveBuildsEntries(t *testing.T) {
	sources := baseSources()
	c := mustResolve(t, sources, nil)

	var names []string
	for _, e := range c.Entries() {
		names = append(names, e.Name())
	}
	if want := []string{"read_file", "write_file", "project_note", "docs__search"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("Entries order = %v, want %v", names, want)
	}
	if c.Len() != 4 {
		t.Errorf("Len = %d", c.Len())
	}

	e, ok := c.Lookup("read_file")
	if !ok {
		t.Fatal("read_file not found")
	}
	if e.Binding != sources[0].Binding {
		t.Errorf("Binding = %v, want the coding source's", e.Binding)
	}
	wantProv := Provenance{Kind: SourceBuiltin, Toolset: "coding", Plugin: "demiurge-coding", Version: "0.1.0"}
	if e.Spec.Provenance != wantProv {
		t.Errorf("Provenance = %+v, want %+v", e.Spec.Provenance, wantProv)
	}
	if !reflect.DeepEqual(e.RequiredCapabilities, []string{"fs.read"}) {
		t.Errorf("RequiredCapabilities = %v", e.RequiredCapabilities)
	}
	if !reflect.DeepEqual(e.Effective, e.Spec.Metadata) {
		t.Errorf("without overrides Effective = %+v, want the registry metadata", e.Effective)
	}
	if e.StrictCompatible {
		t.Errorf("read_file has an optional offset; StrictCompatible must be false")
	}
	if len(e.StrictReasons) == 0 || !strings.Contains(e.StrictReasons[0], `"offset" is optional`) {
		t.Errorf("StrictReasons = %q", e.StrictReasons)
	}
	if _, err := e.Schema.Coerce(json.RawMessage(`{"path":"a"}`)); !errors.Is(err, ErrSchemaNotCompiled) {
		t.Errorf("entry schema Coerce without a compiler = %v, want ErrSchemaNotCompiled (argcheck tests the compiled path)", err)
	}

	w, _ := c.Lookup("write_file")
	if !w.StrictCompatible || len(w.StrictReasons) != 0 {
		t.Errorf("write_file StrictCompatible = %v %q, want true", w.StrictCompatible, w.StrictReasons)
	}
	note, _ := c.Lookup("project_note")
	if len(note.RequiredCapabilities) != 0 {
		t.Errorf("authored tool without capability requires %v", note.RequiredCapabilities)
	}
	if string(note.Schema.JSON()) != `{"properties":{},"type":"object"}` {
		t.Errorf("authored tool without schema: %s", note.Schema.JSON())
	}
	if _, ok := c.Lookup("nope"); ok {
		t.Error("Lookup of an unknown name succeeded")
	}
	if len(c.Diagnostics()) != 0 {
		t.Errorf("Diagnostics = %v, want none", c.Diagnostics())
	}

	// Entries returns a copy of the list.
	list := c.Entries()
	list[0] = nil
	if c.Entries()[0] == nil {
		t.Error("Entries shares its slice with the catalog")
	}
}

func TestResolveCollisions(t *testing.T) {
	tests := []struct {
		name        string
		sources     []Source
		overrides   map[string]Override
		involvesMCP bool
		mentions    []string
	}{
		{
			name: "builtin and authored",
			sources: []Source{
				{Kind: SourceBuiltin, Name: "coding", Tools: []ToolSpec{readFileSpec()}},
				{Kind: SourceAuthored, Name: "agent/tools", Tools: []ToolSpec{authoredSpec("read_file")}},
			},
			mentions: []string{`"read_file"`, `builtin toolset "coding" (plugin demiurge-coding 0.1.0)`, `authored tools "agent/tools" declared in agent/tools/read_file/tool.yaml`, "rename one"},
		},
		{
			name: "builtin and MCP",
			sources: []Source{
				{Kind: SourceBuiltin, Name: "coding", Tools: []ToolSpec{readFileSpec()}},
				{Kind: SourceMCP, Name: "fs", Tools: []ToolSpec{mcpSpec("read_file")}},
			},
			involvesMCP: true,
			mentions:    []string{`MCP server "fs" declared in agent/mcp/docs.yaml`, `builtin toolset "coding"`},
		},
		{
			name: "MCP first, builtin second",
			sources: []Source{
				{Kind: SourceMCP, Name: "fs", Tools: []ToolSpec{mcpSpec("read_file")}},
				{Kind: SourceBuiltin, Name: "coding", Tools: []ToolSpec{readFileSpec()}},
			},
			involvesMCP: true,
			mentions:    []string{`by MCP server "fs" declared in agent/mcp/docs.yaml and by builtin toolset "coding"`},
		},
		{
			name: "two MCP servers",
			sources: []Source{
				{Kind: SourceMCP, Name: "a", Tools: []ToolSpec{mcpSpec("search")}},
				{Kind: SourceMCP, Name: "b", Tools: []ToolSpec{mcpSpec("search")}},
			},
			involvesMCP: true,
			mentions:    []string{`MCP server "a"`, `MCP server "b"`},
		},
		{
			name: "within one source",
			sources: []Source{
				{Kind: SourceBuiltin, Name: "coding", Tools: []ToolSpec{readFileSpec(), readFileSpec()}},
			},
			mentions: []string{`"read_file" is provided twice`},
		},
		{
			name: "disabling one does not resolve it",
			sources: []Source{
				{Kind: SourceBuiltin, Name: "coding", Tools: []ToolSpec{readFileSpec()}},
				{Kind: SourceAuthored, Name: "agent/tools", Tools: []ToolSpec{authoredSpec("read_file")}},
			},
			overrides: map[string]Override{"read_file": {Enabled: ptr(false)}},
			mentions:  []string{`"read_file" is provided twice`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Resolve(tt.sources, tt.overrides)
			var ce *CollisionError
			if !errors.As(err, &ce) {
				t.Fatalf("Resolve = %v, %v; want a *CollisionError", c, err)
			}
			if c != nil {
				t.Error("a catalog was returned despite the collision")
			}
			if ce.InvolvesMCP != tt.involvesMCP {
				t.Errorf("InvolvesMCP = %v, want %v", ce.InvolvesMCP, tt.involvesMCP)
			}
			if ce.First == ce.Second && tt.name != "within one source" {
				t.Errorf("First and Second are the same provenance: %+v", ce.First)
			}
			for _, m := range tt.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q\ndoes not mention %q", err, m)
				}
			}
		})
	}
}

func TestResolveReportsEveryCollision(t *testing.T) {
	_, err := Resolve([]Source{
		{Kind: SourceBuiltin, Name: "coding", Tools: []ToolSpec{readFileSpec(), writeFileSpec()}},
		{Kind: SourceAuthored, Name: "agent/tools", Tools: []ToolSpec{authoredSpec("read_file")}},
		{Kind: SourceMCP, Name: "docs", Tools: []ToolSpec{mcpSpec("write_file")}},
	}, nil)
	var collisions []*CollisionError
	for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
		var ce *CollisionError
		if errors.As(e, &ce) {
			collisions = append(collisions, ce)
		}
	}
	if len(collisions) != 2 || collisions[0].Name != "read_file" || collisions[0].InvolvesMCP ||
		collisions[1].Name != "write_file" || !collisions[1].InvolvesMCP {
		t.Fatalf("collisions = %+v, want read_file (no MCP) then write_file (MCP)", collisions)
	}
}

func TestResolveRejectsBadTools(t *testing.T) {
	withSpec := func(kind SourceKind, name string, mutate func(*ToolSpec)) []Source {
		s := readFileSpec()
		mutate(&s)
		return []Source{{Kind: kind, Name: name, Tools: []ToolSpec{s}}}
	}
	tests := []struct {
		name     string
		sources  []Source
		mentions []string
	}{
		{"name with a dot", withSpec(SourceMCP, "docs", func(s *ToolSpec) { s.Name = "docs.search" }),
			[]string{`tool "docs.search" from MCP server "docs"`, "letter or underscore"}},
		{"name starting with a digit", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.Name = "1read" }),
			[]string{`tool "1read" from builtin toolset "coding" (plugin demiurge-coding 0.1.0)`}},
		{"name too long", withSpec(SourceMCP, "docs", func(s *ToolSpec) { s.Name = strings.Repeat("x", 65) }),
			[]string{"at most 64"}},
		{"schema is not an object", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.InputSchema = json.RawMessage(`{"type":"array"}`) }),
			[]string{`tool "read_file"`, `must be "object"`}},
		{"provenance claims another kind", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.Provenance.Kind = SourceMCP }),
			[]string{`claims provenance MCP server "coding"`, `comes from builtin source "coding"`}},
		{"provenance claims another toolset", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.Provenance.Toolset = "other" }),
			[]string{`comes from builtin source "coding"`}},
		{"no effect", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.Effect = "" }),
			[]string{`effect "" is not one of`}},
		{"risk out of range", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.Metadata.Risk = 7 }),
			[]string{"metadata risk 7"}},
		{"approval out of range", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.Metadata.ApprovalPolicy = -1 }),
			[]string{"metadata approval_policy -1"}},
		{"subject names a missing argument", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.Subjects[0].Arg = "file" }),
			[]string{`path subject argument "file" is not a property`}},
		{"path subject without access", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.Subjects[0].Access = "" }),
			[]string{`has access ""`}},
		{"subject without argument", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) {
			s.Subjects = []Subject{{Kind: SubjectURL}}
		}), []string{"url subject names no argument"}},
		{"unknown subject kind", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.Subjects[0].Kind = "file" }),
			[]string{`subject kind "file"`}},
		{"cwd_arg on a path subject", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) { s.Subjects[0].CwdArg = "offset" }),
			[]string{"sets cwd_arg, which only command subjects have"}},
		{"command cwd_arg missing from schema", withSpec(SourceBuiltin, "coding", func(s *ToolSpec) {
			s.Subjects = []Subject{{Kind: SubjectCommand, Arg: "path", CwdArg: "cwd"}}
		}), []string{`command subject cwd_arg "cwd" is not a property`}},
		{"unknown source kind", []Source{{Kind: "plugin", Name: "x"}}, []string{`has kind "plugin"`}},
		{"source without name", []Source{{Kind: SourceBuiltin}}, []string{"has no name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Resolve(tt.sources, nil)
			if err == nil {
				t.Fatalf("Resolve succeeded with %d entries", c.Len())
			}
			for _, m := range tt.mentions {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q\ndoes not mention %q", err, m)
				}
			}
		})
	}
}

func TestResolveAcceptsCommandSubject(t *testing.T) {
	spec := ToolSpec{
		Name: "terminal", Effect: EffectExec,
		InputSchema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"cwd":{"type":"string"},
		  "env":{"type":"object"},"background":{"type":"boolean"},"timeout":{"type":"integer"}}}`),
		Metadata: Metadata{Risk: RiskHigh, Capability: "terminal.exec", ApprovalPolicy: ApprovalPrompt},
		Subjects: []Subject{{Kind: SubjectCommand, Arg: "command", CwdArg: "cwd", EnvArg: "env", BackgroundArg: "background", TimeoutArg: "timeout"}},
	}
	c := mustResolve(t, []Source{{Kind: SourceBuiltin, Name: "coding", Tools: []ToolSpec{spec}}}, nil)
	if e, ok := c.Lookup("terminal"); !ok || e.Spec.Subjects[0].TimeoutArg != "timeout" {
		t.Fatalf("terminal entry = %+v", e)
	}
}

func TestResolveOverrides(t *testing.T) {
	tests := []struct {
		name      string
		tool      string
		override  Override
		wantRisk  Risk
		wantAppr  ApprovalPolicy
		wantCap   string
		wantCaps  []string
		wantDisp  string
		wantModel string
		diags     []Diagnostic // Message compared by substring
	}{
		{name: "raise risk", tool: "read_file", override: Override{Risk: ptr(RiskHigh)},
			wantRisk: RiskHigh, wantAppr: ApprovalAuto, wantCap: "fs.read", wantCaps: []string{"fs.read"}, wantDisp: "summary", wantModel: "content"},
		{name: "lower risk refused", tool: "write_file", override: Override{Risk: ptr(RiskLow), Origin: "agent.yaml:12"},
			wantRisk: RiskHigh, wantAppr: ApprovalPrompt, wantCap: "fs.write", wantCaps: []string{"fs.write"},
			diags: []Diagnostic{{Tool: "write_file", Field: "risk", Origin: "agent.yaml:12", Level: LevelWarning,
				Message: `tools.metadata.write_file.risk: "low" would lower the registry risk "high" of tool "write_file"; not applied`}}},
		{name: "same risk is no diagnostic", tool: "write_file", override: Override{Risk: ptr(RiskHigh)},
			wantRisk: RiskHigh, wantAppr: ApprovalPrompt, wantCap: "fs.write", wantCaps: []string{"fs.write"}},
		{name: "raise approval", tool: "read_file", override: Override{ApprovalPolicy: ptr(ApprovalDeny)},
			wantRisk: RiskLow, wantAppr: ApprovalDeny, wantCap: "fs.read", wantCaps: []string{"fs.read"}, wantDisp: "summary", wantModel: "content"},
		{name: "weaken approval refused", tool: "write_file", override: Override{ApprovalPolicy: ptr(ApprovalAuto), Origin: "agent.yaml:20"},
			wantRisk: RiskHigh, wantAppr: ApprovalPrompt, wantCap: "fs.write", wantCaps: []string{"fs.write"},
			diags: []Diagnostic{{Tool: "write_file", Field: "approval_policy", Origin: "agent.yaml:20", Level: LevelWarning,
				Message: `"auto" would weaken the registry approval policy "prompt"`}}},
		{name: "both lowered, both refused", tool: "write_file", override: Override{Risk: ptr(RiskMedium), ApprovalPolicy: ptr(ApprovalAuto)},
			wantRisk: RiskHigh, wantAppr: ApprovalPrompt, wantCap: "fs.write", wantCaps: []string{"fs.write"},
			diags: []Diagnostic{{Tool: "write_file", Field: "risk", Level: LevelWarning, Message: `registry risk "high"`},
				{Tool: "write_file", Field: "approval_policy", Level: LevelWarning, Message: `registry approval policy "prompt"`}}},
		{name: "capability is added, not replaced", tool: "read_file", override: Override{Capability: ptr("tool.call:read_file")},
			wantRisk: RiskLow, wantAppr: ApprovalAuto, wantCap: "fs.read", wantCaps: []string{"fs.read", "tool.call:read_file"}, wantDisp: "summary", wantModel: "content"},
		{name: "same capability once", tool: "read_file", override: Override{Capability: ptr("fs.read")},
			wantRisk: RiskLow, wantAppr: ApprovalAuto, wantCap: "fs.read", wantCaps: []string{"fs.read"}, wantDisp: "summary", wantModel: "content"},
		{name: "capability for a tool without one", tool: "project_note", override: Override{Capability: ptr("notes.write")},
			wantRisk: RiskMedium, wantAppr: ApprovalPrompt, wantCap: "notes.write", wantCaps: []string{"notes.write"}},
		{name: "empty capability ignored", tool: "read_file", override: Override{Capability: ptr("")},
			wantRisk: RiskLow, wantAppr: ApprovalAuto, wantCap: "fs.read", wantCaps: []string{"fs.read"}, wantDisp: "summary", wantModel: "content",
			diags: []Diagnostic{{Tool: "read_file", Field: "capability", Level: LevelWarning, Message: "never remove one"}}},
		{name: "display and model output replace", tool: "read_file", override: Override{DisplayPolicy: ptr("full"), ModelOutputPolicy: ptr("model_output")},
			wantRisk: RiskLow, wantAppr: ApprovalAuto, wantCap: "fs.read", wantCaps: []string{"fs.read"}, wantDisp: "full", wantModel: "model_output"},
		{name: "enabled true changes nothing", tool: "read_file", override: Override{Enabled: ptr(true)},
			wantRisk: RiskLow, wantAppr: ApprovalAuto, wantCap: "fs.read", wantCaps: []string{"fs.read"}, wantDisp: "summary", wantModel: "content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustResolve(t, baseSources(), map[string]Override{tt.tool: tt.override})
			e, _ := c.Lookup(tt.tool)
			eff := e.Effective
			if eff.Risk != tt.wantRisk || eff.ApprovalPolicy != tt.wantAppr || eff.Capability != tt.wantCap ||
				eff.DisplayPolicy != tt.wantDisp || eff.ModelOutputPolicy != tt.wantModel {
				t.Errorf("Effective = %+v\nwant risk %v approval %v capability %q display %q model %q",
					eff, tt.wantRisk, tt.wantAppr, tt.wantCap, tt.wantDisp, tt.wantModel)
			}
			if !reflect.DeepEqual(e.RequiredCapabilities, tt.wantCaps) {
				t.Errorf("RequiredCapabilities = %v, want %v", e.RequiredCapabilities, tt.wantCaps)
			}
			if !reflect.DeepEqual(e.Spec.Metadata, readSpecMetadata(tt.tool)) {
				t.Errorf("the registry metadata in Spec changed: %+v", e.Spec.Metadata)
			}
			if len(e.Diagnostics) != len(tt.diags) {
				t.Fatalf("Diagnostics = %+v, want %d", e.Diagnostics, len(tt.diags))
			}
			for i, want := range tt.diags {
				got := e.Diagnostics[i]
				if got.Tool != want.Tool || got.Field != want.Field || got.Origin != want.Origin || got.Level != want.Level ||
					!strings.Contains(got.Message, want.Message) {
					t.Errorf("diagnostic %d = %+v\nwant %+v", i, got, want)
				}
			}
			if !reflect.DeepEqual(c.Diagnostics(), e.Diagnostics) && !(len(e.Diagnostics) == 0 && len(c.Diagnostics()) == 0) {
				t.Errorf("catalog Diagnostics %v differ from the entry's %v", c.Diagnostics(), e.Diagnostics)
			}
		})
	}
}

// readSpecMetadata is the registry metadata the fixtures declare; Spec
// must keep it unchanged whatever the overrides.
func readSpecMetadata(tool string) Metadata {
	for _, s := range baseSources() {
		for _, spec := range s.Tools {
			if spec.Name == tool {
				return spec.Metadata
			}
		}
	}
	return Metadata{}
}

func TestResolveDisable(t *testing.T) {
	c := mustResolve(t, baseSources(), map[string]Override{
		"write_file":   {Enabled: ptr(false), Risk: ptr(RiskLow)},
		"docs__search": {Enabled: ptr(false)},
	})
	if _, ok := c.Lookup("write_file"); ok {
		t.Error("disabled write_file is still in the catalog")
	}
	for _, e := range c.Entries() {
		if e.Name() == "write_file" || e.Name() == "docs__search" {
			t.Errorf("disabled %s listed", e.Name())
		}
	}
	if got := c.Disabled(); !reflect.DeepEqual(got, []string{"write_file", "docs__search"}) {
		t.Errorf("Disabled = %v", got)
	}
	if len(c.Diagnostics()) != 0 {
		t.Errorf("a disabled tool's other override fields produced diagnostics: %v", c.Diagnostics())
	}
}

func TestResolveDisabledToolIsNotChecked(t *testing.T) {
	// enabled: false is the operator's way out of a broken tool.
	broken := mcpSpec("broken")
	broken.InputSchema = json.RawMessage(`{"type":"nonsense"}`)
	c := mustResolve(t, []Source{{Kind: SourceMCP, Name: "docs", Tools: []ToolSpec{broken, mcpSpec("ok")}}},
		map[string]Override{"broken": {Enabled: ptr(false)}})
	if c.Len() != 1 {
		t.Fatalf("Len = %d, want 1", c.Len())
	}
}

func TestResolveUnknownOverride(t *testing.T) {
	c := mustResolve(t, baseSources(), map[string]Override{
		"read_fil":  {Risk: ptr(RiskHigh), Origin: "agent.yaml:7"},
		"zzz":       {Enabled: ptr(false), Origin: "agent.yaml:9"},
		"read_file": {Risk: ptr(RiskLow)},
	})
	d := c.Diagnostics()
	if len(d) != 2 {
		t.Fatalf("Diagnostics = %+v, want 2", d)
	}
	if d[0].Tool != "read_fil" || d[0].Origin != "agent.yaml:7" || d[0].Level != LevelWarning ||
		!strings.Contains(d[0].Message, "no toolset, authored tool or MCP server provides") ||
		!strings.Contains(d[0].Message, `did you mean "read_file"?`) {
		t.Errorf("diagnostic 0 = %+v", d[0])
	}
	if d[1].Tool != "zzz" || strings.Contains(d[1].Message, "did you mean") {
		t.Errorf("diagnostic 1 = %+v", d[1])
	}
}

func TestResolveRejectsInvalidOverrideValues(t *testing.T) {
	tests := []struct {
		name     string
		override Override
		mentions string
	}{
		{"risk out of range", Override{Risk: ptr(Risk(9)), Origin: "agent.yaml:3"}, "tools.metadata.read_file.risk at agent.yaml:3: risk(9)"},
		{"approval out of range", Override{ApprovalPolicy: ptr(ApprovalPolicy(-2))}, "tools.metadata.read_file.approval_policy: approval(-2)"},
		{"capability with spaces", Override{Capability: ptr("fs.read fs.write")}, "contains whitespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Resolve(baseSources(), map[string]Override{"read_file": tt.override})
			if err == nil || !strings.Contains(err.Error(), tt.mentions) {
				t.Fatalf("Resolve error = %v, want it to mention %q", err, tt.mentions)
			}
		})
	}
}

func TestFingerprint(t *testing.T) {
	base := mustResolve(t, baseSources(), nil).Fingerprint()
	if len(base) != 64 {
		t.Fatalf("Fingerprint = %q, want 64 hex digits", base)
	}
	same := []struct {
		name   string
		mutate func([]Source, map[string]Override)
	}{
		{"nothing", func([]Source, map[string]Override) {}},
		{"schema reformatted", func(s []Source, _ map[string]Override) {
			s[0].Tools[0].InputSchema = json.RawMessage("{\n  \"required\": [\"path\"], \"type\": \"object\", \"additionalProperties\": false,\n" +
				`"properties": {"offset": {"type": "integer"}, "path": {"type": "string"}}}`)
		}},
		{"binding changed", func(s []Source, _ map[string]Override) { s[0].Binding = &binding{"other"} }},
	}
	for _, tt := range same {
		t.Run("same/"+tt.name, func(t *testing.T) {
			s, o := baseSources(), map[string]Override{}
			tt.mutate(s, o)
			if got := mustResolve(t, s, o).Fingerprint(); got != base {
				t.Errorf("fingerprint changed")
			}
		})
	}
	differ := []struct {
		name   string
		mutate func([]Source, map[string]Override)
	}{
		{"description", func(s []Source, _ map[string]Override) { s[0].Tools[0].Description += "!" }},
		{"schema meaning", func(s []Source, _ map[string]Override) {
			s[0].Tools[0].InputSchema = json.RawMessage(`{"type":"object","required":["path"],"properties":{"path":{"type":"string"}}}`)
		}},
		{"registry risk", func(s []Source, _ map[string]Override) { s[0].Tools[0].Metadata.Risk = RiskMedium }},
		{"effect", func(s []Source, _ map[string]Override) { s[0].Tools[0].Effect = EffectWrite }},
		{"subject", func(s []Source, _ map[string]Override) { s[0].Tools[0].Subjects[0].Access = AccessWrite }},
		{"plugin version", func(s []Source, _ map[string]Override) { s[0].Tools[0].Provenance.Version = "0.1.1" }},
		{"tool order", func(s []Source, _ map[string]Override) { s[0].Tools[0], s[0].Tools[1] = s[0].Tools[1], s[0].Tools[0] }},
		{"tool removed", func(s []Source, _ map[string]Override) { s[2].Tools = nil }},
		{"override raises", func(_ []Source, o map[string]Override) { o["read_file"] = Override{Risk: ptr(RiskMedium)} }},
		{"override adds capability", func(_ []Source, o map[string]Override) { o["read_file"] = Override{Capability: ptr("x")} }},
		{"override display", func(_ []Source, o map[string]Override) { o["read_file"] = Override{DisplayPolicy: ptr("full")} }},
		{"override refused", func(_ []Source, o map[string]Override) { o["write_file"] = Override{Risk: ptr(RiskLow)} }},
		{"override disables", func(_ []Source, o map[string]Override) { o["docs__search"] = Override{Enabled: ptr(false)} }},
		{"override of unknown tool", func(_ []Source, o map[string]Override) { o["nothing"] = Override{Risk: ptr(RiskHigh)} }},
	}
	seen := map[string]string{base: "base"}
	for _, tt := range differ {
		t.Run("differs/"+tt.name, func(t *testing.T) {
			s, o := baseSources(), map[string]Override{}
			tt.mutate(s, o)
			got := mustResolve(t, s, o).Fingerprint()
			if prev, dup := seen[got]; dup {
				t.Errorf("fingerprint equals the one of %q", prev)
			}
			seen[got] = tt.name
		})
	}
}

func TestOverridesTurnOffLiteralCommandsAuto(t *testing.T) {
	reg := Metadata{Risk: RiskHigh, Capability: "terminal.exec", ApprovalPolicy: ApprovalPrompt, LiteralCommandsAuto: true}
	tests := []struct {
		name string
		ov   Override
		want bool
	}{
		{"no override", Override{}, true},
		{"display only", Override{DisplayPolicy: ptr("full")}, true},
		{"approval prompt restated", Override{ApprovalPolicy: ptr(ApprovalPrompt)}, false},
		{"approval deny", Override{ApprovalPolicy: ptr(ApprovalDeny)}, false},
		{"approval auto refused", Override{ApprovalPolicy: ptr(ApprovalAuto)}, true},
		{"risk restated", Override{Risk: ptr(RiskHigh)}, false},
		{"risk lowered refused", Override{Risk: ptr(RiskLow)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			eff, _, err := applyOverride("terminal", reg, tt.ov)
			if err != nil {
				t.Fatal(err)
			}
			if eff.LiteralCommandsAuto != tt.want {
				t.Errorf("LiteralCommandsAuto = %v, want %v", eff.LiteralCommandsAuto, tt.want)
			}
		})
	}
}

// TestNoToolIsNamedLikeAnApproval pins that no source can offer a tool
// named like the host's own MCP approvals, in any case: the operator's
// allow:mcp_connect__docs, meant to start docs, approved calling an
// authored tool named mcp_connect__docs.
func TestNoToolIsNamedLikeAnApproval(t *testing.T) {
	for _, name := range []string{"mcp_connect__docs", "MCP_Connect__docs", "mcp_elicit__docs", "mcp_ELICIT__x"} {
		for _, kind := range []SourceKind{SourceAuthored, SourceMCP, SourceBuiltin} {
			spec := authoredSpec(name)
			if kind == SourceMCP {
				spec = mcpSpec(name)
			}
			_, err := Resolve([]Source{{Kind: kind, Name: "src", Tools: []ToolSpec{spec}}}, nil)
			if err == nil || !strings.Contains(err.Error(), "names the host's own MCP approvals") {
				t.Errorf("%s from %s: err = %v, want refused as an approval's name", name, kind, err)
			}
		}
	}
	for _, name := range []string{"mcp_connector", "my_mcp_connect__x", "mcp_connect_docs"} {
		if _, err := Resolve([]Source{{Kind: SourceAuthored, Name: "src", Tools: []ToolSpec{authoredSpec(name)}}}, nil); err != nil {
			t.Errorf("%s: %v, want accepted", name, err)
		}
	}
}
