package dispatch

import (
	"context"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// TestHostServicesByDeclarationAndProvenance: a tool gets the clarify
// service when it declares it and its toolset came with the host, whatever
// it is called (the fixture's "ask"); the same tools from an installed
// (third-party) toolset, and the built-in clarify itself, declare it in
// vain there: the request is refused and the operator is never asked.
func TestHostServicesByDeclarationAndProvenance(t *testing.T) {
	h := newHarness(t)
	installed := func(src catalog.Source) catalog.Source {
		src.Kind = catalog.SourceInstalled
		tools := make([]catalog.ToolSpec, len(src.Tools))
		for i, s := range src.Tools {
			s.Provenance.Kind = catalog.SourceInstalled
			tools[i] = s
		}
		src.Tools = tools
		return src
	}
	fixture := h.source(t, "fixture", autoMeta)
	coding := h.source(t, "coding", codingMeta)
	for _, tc := range []struct {
		name    string
		src     catalog.Source
		tool    string
		args    string
		granted bool
	}{
		{"built-in fixture tool declaring clarify", fixture, "ask", `{"text":"which?"}`, true},
		{"built-in clarify", coding, "clarify", `{"question":"which?"}`, true},
		{"third-party tool declaring clarify", installed(fixture), "ask", `{"text":"which?"}`, false},
		{"third-party toolset's clarify", installed(coding), "clarify", `{"question":"which?"}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			turn := h.turn(t, []string{"fs.read"}, nil, tc.src)
			asked := 0
			turn.Clarify = func(ctx context.Context, q string, choices []string) (string, bool, error) {
				asked++
				return "the left one", true, nil
			}
			out := turn.Call(context.Background(), ToolCall{ID: "c-" + tc.tool, Name: tc.tool, Args: []byte(tc.args)})
			if tc.granted {
				if !out.OK() || asked != 1 || !strings.Contains(out.Views.Model, "the left one") {
					t.Fatalf("granted service: status %s, asked %d, model %q", out.Status, asked, out.Views.Model)
				}
				return
			}
			if out.OK() || asked != 0 || !strings.Contains(out.Views.Model, "clarify host service") {
				t.Fatalf("ungranted service: status %s, asked %d, model %q", out.Status, asked, out.Views.Model)
			}
		})
	}
}

// TestGrantsHostService: the grant needs both the declaration and a
// built-in source; a name alone gives nothing.
func TestGrantsHostService(t *testing.T) {
	spec := func(kind catalog.SourceKind, name string, services ...string) *prepared {
		return &prepared{entry: &catalog.Entry{Spec: catalog.ToolSpec{Name: name, HostServices: services,
			Provenance: catalog.Provenance{Kind: kind, Toolset: "coding"}}}}
	}
	for _, tc := range []struct {
		p       *prepared
		service string
		want    bool
	}{
		{spec(catalog.SourceBuiltin, "todo", catalog.ServiceTodo), catalog.ServiceTodo, true},
		{spec(catalog.SourceBuiltin, "anything", catalog.ServiceTodo), catalog.ServiceTodo, true},
		{spec(catalog.SourceBuiltin, "todo"), catalog.ServiceTodo, false},
		{spec(catalog.SourceBuiltin, "todo", catalog.ServiceClarify), catalog.ServiceTodo, false},
		{spec(catalog.SourceInstalled, "todo", catalog.ServiceTodo), catalog.ServiceTodo, false},
		{spec(catalog.SourceAuthored, "todo", catalog.ServiceTodo), catalog.ServiceTodo, false},
		{spec(catalog.SourceMCP, "delegate_task", catalog.ServiceDelegate), catalog.ServiceDelegate, false},
		{&prepared{}, catalog.ServiceTodo, false},
	} {
		if got := tc.p.grants(tc.service); got != tc.want {
			t.Errorf("%+v: grants(%s) = %v", tc.p.entry, tc.service, got)
		}
	}
}
