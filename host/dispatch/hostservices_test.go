package dispatch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
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
				if !out.OK() || asked != 1 || !strings.Contains(out.Views.Model.String(), "the left one") {
					t.Fatalf("granted service: status %s, asked %d, model %q", out.Status, asked, out.Views.Model.String())
				}
				return
			}
			if out.OK() || asked != 0 || !strings.Contains(out.Views.Model.String(), "clarify host service") {
				t.Fatalf("ungranted service: status %s, asked %d, model %q", out.Status, asked, out.Views.Model.String())
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

// previewAnswer records what the operator was shown and denies.
type previewAnswer struct{ shown []string }

func (p *previewAnswer) Name() string { return "recording" }
func (p *previewAnswer) Ask(_ context.Context, r approval.Request) (approval.Answer, error) {
	p.shown = append(p.shown, r.Preview)
	return approval.Deny, nil
}

// TestApprovalPreviewByDeclarationAndProvenance: the built-in write_file
// and patch declare their diff previews and the operator sees a diff; the
// same tools from an installed toolset declare them in vain, and the
// operator sees the arguments.
func TestApprovalPreviewByDeclarationAndProvenance(t *testing.T) {
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.ws, "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	coding := h.source(t, "coding", codingMeta)
	installed := asInstalled(coding)
	calls := []ToolCall{
		{ID: "w", Name: "write_file", Args: []byte(`{"path":"a.txt","content":"one\nTWO\n"}`)},
		{ID: "p", Name: "patch", Args: []byte(`{"path":"a.txt","old_string":"two","new_string":"TWO","replace_all":true}`)},
	}
	for _, tc := range []struct {
		src  catalog.Source
		want []string
	}{
		{coding, []string{"--- a/a.txt\n+++ b/a.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+TWO", "(every occurrence)\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-two\n+TWO"}},
		{installed, []string{`{"content":"one\nTWO\n","path":"a.txt"}`, `{"new_string":"TWO","old_string":"two","path":"a.txt","replace_all":true}`}},
	} {
		asker := &previewAnswer{}
		turn := h.turn(t, []string{"fs.read", "fs.write"}, asker, tc.src)
		for _, c := range calls {
			turn.Call(context.Background(), c)
		}
		if len(asker.shown) != 2 || asker.shown[0] != tc.want[0] || asker.shown[1] != tc.want[1] {
			t.Errorf("%s: the operator was shown %q, want %q", tc.src.Kind, asker.shown, tc.want)
		}
	}
}

// asInstalled is src as an installed package would provide it: the same
// tools, each with installed provenance.
func asInstalled(src catalog.Source) catalog.Source {
	installed := src
	installed.Kind = catalog.SourceInstalled
	installed.Tools = nil
	for _, s := range src.Tools {
		s.Provenance.Kind = catalog.SourceInstalled
		installed.Tools = append(installed.Tools, s)
	}
	return installed
}
