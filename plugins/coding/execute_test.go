package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/plugins/coding/fsops"
	"demiurge.dev/sdk"
)

// codingWorkspace is a temporary workspace with a directory beside it
// that calls must not reach without a grant.
type codingWorkspace struct {
	root, outside string
	tools         map[string]sdk.Tool
}

func newCodingWorkspace(t *testing.T) *codingWorkspace {
	t.Helper()
	base := t.TempDir()
	w := &codingWorkspace{root: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"), tools: map[string]sdk.Tool{}}
	for _, d := range []string{w.root, w.outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(w.outside, "secret.txt"), []byte("outside secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tool := range Tools() {
		w.tools[tool.Spec().Name] = tool
	}
	return w
}

func (w *codingWorkspace) context(grants ...sdk.Grant) *sdk.Context {
	return &sdk.Context{Context: context.Background(), Workspace: w.root, Grants: grants}
}

func (w *codingWorkspace) exec(t *testing.T, tool string, args any, grants ...sdk.Grant) *sdk.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res, err := w.tools[tool].Execute(w.context(grants...), raw)
	if err != nil {
		t.Fatalf("%s %s: Go error %v; the model's mistakes must be error results", tool, raw, err)
	}
	return res
}

func (w *codingWorkspace) precheck(t *testing.T, args fsops.PatchParams) *sdk.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := w.tools["patch"].(sdk.Prechecker).Precheck(w.context(), raw)
	if err != nil {
		t.Fatalf("precheck %s: %v", raw, err)
	}
	return res
}

func (w *codingWorkspace) file(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func wantOK(t *testing.T, what string, res *sdk.Result, contains ...string) {
	t.Helper()
	if res.IsError {
		t.Fatalf("%s: error result %s: %s", what, res.ErrorCode, res.Content)
	}
	for _, c := range contains {
		if !strings.Contains(res.Content, c) {
			t.Errorf("%s: content lacks %q:\n%s", what, c, res.Content)
		}
	}
}

func wantRefused(t *testing.T, what string, res *sdk.Result, contains string) {
	t.Helper()
	if res == nil || !res.IsError || res.ErrorCode != "refused" || !strings.Contains(res.Content, contains) {
		t.Errorf("%s = %+v, want a refused error result containing %q", what, res, contains)
	}
}

// TestFileToolsWorkTogether writes, reads, patches and searches one file
// through the tools' Execute, as the plugin runs them.
func TestFileToolsWorkTogether(t *testing.T) {
	w := newCodingWorkspace(t)
	content := "package notes\n\n// TODO: first\nfunc A() {}\n// TODO: second\n"

	res := w.exec(t, "write_file", fsops.WriteParams{Path: "notes/a.go", Content: content, CreateDirs: true})
	sum := sha256.Sum256([]byte(content))
	wantOK(t, "write_file", res, fmt.Sprintf("created notes/a.go: %d bytes, mode 0644, sha256 %x", len(content), sum))
	if got := w.file(t, "notes/a.go"); got != content {
		t.Fatalf("written file = %q, want %q", got, content)
	}
	if wr, ok := res.Structured.(fsops.WriteResult); !ok || !wr.Created || wr.BytesWritten != int64(len(content)) {
		t.Errorf("write_file structured = %+v", res.Structured)
	}

	res = w.exec(t, "read_file", fsops.ReadParams{Path: "notes/a.go", Offset: 3, Limit: 2})
	wantOK(t, "read_file", res, "     3\t// TODO: first\n     4\tfunc A() {}\n[notes/a.go: lines 3-4 of 5; ")
	if strings.Contains(res.Content, "package notes") {
		t.Errorf("read_file returned lines outside the window:\n%s", res.Content)
	}

	ambiguous := fsops.PatchParams{Path: "notes/a.go", OldString: "// TODO:", NewString: "// DONE:"}
	wantRefused(t, "precheck of an ambiguous edit", w.precheck(t, ambiguous), "occurs 2 times")
	absent := fsops.PatchParams{Path: "notes/a.go", OldString: "// FIXME", NewString: "// DONE"}
	wantRefused(t, "precheck of an absent match", w.precheck(t, absent), "not found")
	unique := fsops.PatchParams{Path: "notes/a.go", OldString: "// TODO: first", NewString: "// DONE: first"}
	if res := w.precheck(t, unique); res != nil {
		t.Errorf("precheck of a unique edit = %+v, want nil (go on to approval)", res)
	}
	if got := w.file(t, "notes/a.go"); got != content {
		t.Fatalf("a precheck changed the file: %q", got)
	}
	wantRefused(t, "patch of an ambiguous edit", w.exec(t, "patch", ambiguous), "occurs 2 times")

	res = w.exec(t, "patch", unique)
	wantOK(t, "patch", res, fmt.Sprintf("patched notes/a.go: 1 replacement(s), %d → %d bytes, sha256 ", len(content), len(content)),
		"-// TODO: first\n+// DONE: first\n")
	if got, want := w.file(t, "notes/a.go"), strings.Replace(content, "TODO: first", "DONE: first", 1); got != want {
		t.Errorf("patched file = %q, want %q", got, want)
	}

	res = w.exec(t, "search_files", fsops.SearchParams{Pattern: "TODO|DONE"})
	wantOK(t, "search_files", res,
		"notes/a.go:3: // DONE: first\nnotes/a.go:5: // TODO: second\n[content: count 2, total_count 2, dropped 0; 1 files searched]")

	res = w.exec(t, "search_files", fsops.SearchParams{Mode: "files", Glob: "*.go"})
	wantOK(t, "search_files files", res, "notes/a.go\n[files: count 1, total_count 1, dropped 0;")

	res = w.exec(t, "write_file", fsops.WriteParams{Path: "notes/a.go", Content: "package notes\n"})
	wantOK(t, "write_file over an existing file", res, "replaced notes/a.go: 14 bytes")
}

func TestSearchFooterSaysEachBoundOnce(t *testing.T) {
	w := newCodingWorkspace(t)
	for _, name := range []string{"a.go", "b.go", "c.go"} {
		w.exec(t, "write_file", fsops.WriteParams{Path: name, Content: "x\nhit 1\nhit 2\ny\n"})
	}
	res := w.exec(t, "search_files", fsops.SearchParams{Pattern: "hit", MaxResults: 2, ContextLines: 1})
	wantOK(t, "search_files", res, "a.go-1- x\na.go:2: hit 1\na.go:3: hit 2\na.go-4- y\n[content: count 2, total_count 6, dropped 4;")
	if n := strings.Count(res.Content, "stopped by max_results"); n != 1 {
		t.Errorf("the footer names max_results %d times:\n%s", n, res.Content)
	}
}

func TestBinaryFileIsDescribed(t *testing.T) {
	w := newCodingWorkspace(t)
	if err := os.WriteFile(filepath.Join(w.root, "blob.bin"), []byte("\x00\x01\x02\x03binary"), 0o644); err != nil {
		t.Fatal(err)
	}
	res := w.exec(t, "read_file", fsops.ReadParams{Path: "blob.bin"})
	wantOK(t, "read_file of a binary file", res, "blob.bin is a binary file (", ", 10 bytes); it was not read as text.")
	if strings.Contains(res.Content, "binary\n") || strings.Count(res.Content, "10 bytes") != 1 {
		t.Errorf("binary read:\n%s", res.Content)
	}
}

// The model's mistakes come back as refused results it can act on, never
// as Go errors (which the SDK would report as tool failures).
func TestRefusals(t *testing.T) {
	w := newCodingWorkspace(t)
	secret := filepath.Join(w.outside, "secret.txt")
	w.exec(t, "write_file", fsops.WriteParams{Path: "in.txt", Content: "inside\n"})
	if err := os.Symlink(secret, filepath.Join(w.root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool     string
		args     any
		contains string
	}{
		{"read_file", fsops.ReadParams{Path: "../outside/secret.txt"}, "escapes the workspace"},
		{"read_file", fsops.ReadParams{Path: secret}, ""},
		{"read_file", fsops.ReadParams{Path: "link.txt"}, "outside the workspace"},
		{"read_file", fsops.ReadParams{Path: "missing.txt"}, "no such file"},
		{"read_file", fsops.ReadParams{Path: ""}, "path is empty"},
		{"write_file", fsops.WriteParams{Path: "../outside/new.txt", Content: "x"}, "escapes the workspace"},
		{"write_file", fsops.WriteParams{Path: secret, Content: "x"}, ""},
		{"write_file", fsops.WriteParams{Path: "a/b/c.txt", Content: "x"}, "create_dirs"},
		{"patch", fsops.PatchParams{Path: "../outside/secret.txt", OldString: "outside", NewString: "x"}, "escapes the workspace"},
		{"patch", fsops.PatchParams{Path: "in.txt", OldString: "", NewString: "x"}, "old_string is empty"},
		{"search_files", fsops.SearchParams{Pattern: "secret", Path: "../outside"}, "escapes the workspace"},
		{"search_files", fsops.SearchParams{Pattern: "("}, "not a valid RE2"},
	}
	for _, tt := range tests {
		raw, _ := json.Marshal(tt.args)
		wantRefused(t, tt.tool+" "+string(raw), w.exec(t, tt.tool, tt.args), tt.contains)
	}
	if b, _ := os.ReadFile(secret); string(b) != "outside secret\n" {
		t.Errorf("a refused call changed the outside file: %q", b)
	}
	if _, err := os.Stat(filepath.Join(w.outside, "new.txt")); !os.IsNotExist(err) {
		t.Errorf("a refused write created a file outside the workspace: %v", err)
	}
}

// A grant opens exactly one outside path, and only for the access it
// grants: a read grant does not let a write tool write there.
func TestGrants(t *testing.T) {
	w := newCodingWorkspace(t)
	secret := filepath.Join(w.outside, "secret.txt")
	read := sdk.Grant{Path: secret}

	res := w.exec(t, "read_file", fsops.ReadParams{Path: secret}, read)
	wantOK(t, "read_file with a grant", res, "     1\toutside secret\n")

	other := filepath.Join(w.outside, "other.txt")
	if err := os.WriteFile(other, []byte("other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "read_file of a path next to the granted one", w.exec(t, "read_file", fsops.ReadParams{Path: other}, read), "")

	wantRefused(t, "write_file with a read grant", w.exec(t, "write_file", fsops.WriteParams{Path: secret, Content: "x"}, read), "")
	wantRefused(t, "patch with a read grant", w.exec(t, "patch", fsops.PatchParams{Path: secret, OldString: "outside", NewString: "x"}, read), "")
	if b, _ := os.ReadFile(secret); string(b) != "outside secret\n" {
		t.Errorf("a write tool wrote through a read grant: %q", b)
	}
}

func TestMissingWorkspaceIsAToolError(t *testing.T) {
	for _, tool := range Tools() {
		switch tool.Spec().Name {
		case "web_extract":
			continue // it does not use the workspace
		case "skills_list", "skill_view", "skill_manage":
			continue // they work in the skills root (TestSkillToolsWithoutARoot)
		case "todo", "clarify", "session_search":
			continue // they keep no files: their state is the host's (HostServices)
		}
		ctx := &sdk.Context{Context: context.Background(), Workspace: filepath.Join(t.TempDir(), "gone")}
		_, err := tool.Execute(ctx, json.RawMessage(`{"path":"a.txt","pattern":"x"}`))
		if err == nil || !strings.Contains(err.Error(), "workspace") {
			t.Errorf("%s in a missing workspace: %v, want an error naming the workspace", tool.Spec().Name, err)
		}
	}
}

// The skill tools answer a call without a skills root with a tool error.
func TestSkillToolsWithoutARoot(t *testing.T) {
	for _, tool := range Tools() {
		name := tool.Spec().Name
		if !strings.HasPrefix(name, "skill") {
			continue
		}
		ctx := &sdk.Context{Context: context.Background(), Workspace: t.TempDir()}
		res, err := tool.Execute(ctx, json.RawMessage(`{"name":"pdf","action":"delete"}`))
		if err != nil || res == nil || !res.IsError || !strings.Contains(res.Content, "no skills root") {
			t.Errorf("%s without a skills root: %+v, %v; want a tool error", name, res, err)
		}
	}
}
