package mcpserve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/runtime"
)

// TestToolsListIsTheResolvedCatalog: each listed tool is the catalog's
// entry (name, description, the schema a provider is given) with the
// hints the host derives, on both protocol versions.
func TestToolsListIsTheResolvedCatalog(t *testing.T) {
	s := serve(t, serveOpts{})
	cat, err := s.Host.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, s, v, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Tools) != cat.Len() {
				t.Fatalf("listed %d tools, the catalog has %d", len(res.Tools), cat.Len())
			}
			for _, tool := range res.Tools {
				e, ok := cat.Lookup(tool.Name)
				if !ok {
					t.Fatalf("%s is not in the catalog", tool.Name)
				}
				if tool.Description != e.Spec.Description {
					t.Errorf("%s: description changed", tool.Name)
				}
			}
			hints := map[string]string{}
			for _, tool := range res.Tools {
				an := tool.Annotations
				if an.ReadOnlyHint == nil || an.DestructiveHint == nil || an.IdempotentHint == nil || an.OpenWorldHint == nil {
					t.Fatalf("%s: a hint is missing: %+v", tool.Name, an)
				}
				hints[tool.Name] = hintString(an)
			}
			want := map[string]string{
				"read_file":    "readOnly idempotent",
				"search_files": "readOnly idempotent",
				"write_file":   "destructive",
				"patch":        "destructive",
				"terminal":     "destructive openWorld",
				"web_extract":  "destructive openWorld",
				"task_control": "destructive",
				"clarify":      "",
				"todo":         "",
			}
			for name, w := range want {
				if hints[name] != w {
					t.Errorf("%s hints %q, want %q", name, hints[name], w)
				}
			}
		})
	}
}

func hintString(a mcp.ToolAnnotation) string {
	var parts []string
	for _, h := range []struct {
		name string
		v    *bool
	}{{"readOnly", a.ReadOnlyHint}, {"destructive", a.DestructiveHint}, {"idempotent", a.IdempotentHint}, {"openWorld", a.OpenWorldHint}} {
		if *h.v {
			parts = append(parts, h.name)
		}
	}
	return strings.Join(parts, " ")
}

// TestListedSchemaIsUnchanged: on the wire, each input schema is byte for
// byte the one a provider is given (mcp-go's typed client would add an
// empty "required", so this reads the raw response).
func TestListedSchemaIsUnchanged(t *testing.T) {
	s := serve(t, serveOpts{})
	cat, err := s.Host.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	r := initialized(t, s)
	res := r.rpc("tools/list", map[string]any{})
	var listed struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	b, _ := json.Marshal(res)
	if err := json.Unmarshal(b, &listed); err != nil {
		t.Fatal(err)
	}
	if len(listed.Result.Tools) != cat.Len() {
		t.Fatalf("listed %d, catalog %d", len(listed.Result.Tools), cat.Len())
	}
	for _, tool := range listed.Result.Tools {
		e, _ := cat.Lookup(tool.Name)
		var a, b any
		_ = json.Unmarshal(tool.InputSchema, &a)
		_ = json.Unmarshal(e.Schema.JSON(), &b)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("%s: schema\n got %s\nwant %s", tool.Name, ja, jb)
		}
	}
}

// TestCallGoesThroughDispatch: an auto-approved read_file returns the
// model view, and the call is in the audit trail of the client's own
// session, not the host's current one.
func TestCallGoesThroughDispatch(t *testing.T) {
	s := serve(t, serveOpts{})
	if err := os.WriteFile(filepath.Join(s.Workspace, "notes.txt"), []byte("served line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			c := connect(t, s, v, nil)
			res := call(t, c, "read_file", map[string]any{"path": "notes.txt"})
			if res.IsError || !strings.Contains(text(res), "served line") {
				t.Fatalf("%+v", res)
			}
			if calls := servedCalls(t, s, "read_file"); len(calls) == 0 {
				t.Fatal("no audit event of the served call in a served session")
			}
			store, err := s.Host.Store()
			if err != nil {
				t.Fatal(err)
			}
			recs, err := store.Sessions("local:tester")
			if err != nil || len(recs) == 0 {
				t.Fatalf("no session recorded under the --principal: %v %v", recs, err)
			}
		})
	}
}

// TestResultOf: the model view is the content (an envelope's lines
// joined to it); a JSON object view is
// structuredContent too; a refused call is a tool error naming its status,
// and a denial no one could answer names the flag that approves it.
func TestResultOf(t *testing.T) {
	cases := []struct {
		name       string
		out        dispatch.Outcome
		asked      bool
		isError    bool
		structured bool
		has        string
	}{
		{"text", dispatch.Outcome{Status: dispatch.StatusOK, Views: redact.Views{Model: redact.ModelText("  1\thi")}}, false, false, false, "1\thi"},
		{"object", dispatch.Outcome{Status: dispatch.StatusOK, Views: redact.Views{Model: redact.ModelText(`{"task_id":"t1"}`)}}, false, false, true, "t1"},
		{"an envelope, joined", dispatch.Outcome{Status: dispatch.StatusOK, Views: redact.Views{Model: redact.ModelView{Head: "<untrusted-data boundary=\"B\">\n", Body: "page", Tail: "\n</untrusted-data boundary=\"B\">"}}}, false, false, false, "<untrusted-data boundary=\"B\">\npage\n</untrusted-data boundary=\"B\">"},
		{"array is not structure", dispatch.Outcome{Status: dispatch.StatusOK, Views: redact.Views{Model: redact.ModelText(`[1]`)}}, false, false, false, "[1]"},
		{"tool error", dispatch.Outcome{Status: dispatch.StatusToolError, Views: redact.Views{Model: redact.ModelText(`{"x":1}`)}}, false, true, false, "tool_error"},
		{"denied, nobody asked", dispatch.Outcome{Tool: "terminal", Status: dispatch.StatusDenied, Approval: approval.Outcome{Via: approval.ViaDeny}}, false, true, false, "--approve allow:terminal"},
		{"denied by the client", dispatch.Outcome{Tool: "terminal", Status: dispatch.StatusDenied, Approval: approval.Outcome{Via: approval.ViaDeny}}, true, true, false, "denied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := resultOf(c.out, c.asked)
			if res.IsError != c.isError || (res.StructuredContent != nil) != c.structured || !strings.Contains(text(res), c.has) {
				t.Fatalf("%+v: %q", res, text(res))
			}
			if c.asked && strings.Contains(text(res), "--approve") {
				t.Fatalf("a client that answered is told to use a flag: %q", text(res))
			}
		})
	}
}

// servedCalls are the call ids of tool's audit events in a served session
// (not the host's own) with a served call's id.
func servedCalls(t *testing.T, s *served, tool string) map[string]bool {
	t.Helper()
	store, err := s.Host.Store()
	if err != nil {
		t.Fatal(err)
	}
	evs, err := store.Events(runtime.EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	calls := map[string]bool{}
	for _, ev := range evs {
		if ev.Tool == tool && ev.Session != s.Host.Session().ID() && strings.HasPrefix(ev.CallID, "mcp_") {
			calls[ev.CallID] = true
		}
	}
	return calls
}
