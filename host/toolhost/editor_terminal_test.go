package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// offersOnly is an editor that declares what it offers and does nothing.
type offersOnly EditorOffers

func (o offersOnly) Offers() EditorOffers { return EditorOffers(o) }
func (o offersOnly) Do(context.Context, string, any) (json.RawMessage, error) {
	return nil, errors.New("not an editor")
}

// TestEditorTerminalOnlyWhereCommandsRunUnconfined: editor_terminal is in
// the editor's source only when the editor offers a terminal and an
// approved command would run outside the OS sandbox anyway (none
// configured, off, or a mode the kernel cannot enforce without require);
// a sandboxed session never gets a way around its sandbox.
func TestEditorTerminalOnlyWhereCommandsRunUnconfined(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  sandboxing.Config
		want bool
	}{
		{"none configured", sandboxing.Config{}, true},
		{"off", sandboxing.Config{Mode: sandbox.Off}, true},
		{"workspace-write, helper missing", sandboxing.Config{Mode: sandbox.WorkspaceWrite}, true},
		{"workspace-write, helper missing, required", sandboxing.Config{Mode: sandbox.WorkspaceWrite, Require: true}, false},
	} {
		if got := commandsUnconfined(tc.cfg); got != tc.want {
			t.Errorf("%s: unconfined %v, want %v", tc.name, got, tc.want)
		}
	}
	has := func(e Editor, unconfined bool) bool {
		src, _ := editorSource(e, unconfined)
		for _, s := range src.Tools {
			if s.Name == EditorTerminalTool {
				return true
			}
		}
		return false
	}
	if !has(offersOnly{Terminal: true}, true) {
		t.Error("a terminal in an unconfined session is not offered")
	}
	if has(offersOnly{Terminal: true}, false) {
		t.Error("a terminal is offered in a sandboxed session")
	}
	if has(offersOnly{ReadTextFile: true, WriteTextFile: true}, true) {
		t.Error("a terminal is offered to an editor without one")
	}
}

// TestEditorFilesOnlyWhereCommandsRunUnconfined: editor_read_file and
// editor_write_file are in the editor's source only where approved
// commands run unconfined anyway. The host checks the path when it admits
// the call; the editor, outside the sandbox, opens it afterwards and
// follows whatever link a sandboxed command planted meanwhile (below: a
// checked workspace directory turned into a link to a directory outside,
// between the host's check and the editor's open), so in a sandboxed
// session they would be a way around the sandbox.
func TestEditorFilesOnlyWhereCommandsRunUnconfined(t *testing.T) {
	both := offersOnly{ReadTextFile: true, WriteTextFile: true}
	names := func(unconfined bool) []string {
		src, ok := editorSource(both, unconfined)
		var n []string
		for _, s := range src.Tools {
			n = append(n, s.Name)
		}
		if ok != (len(n) > 0) {
			t.Errorf("unconfined=%v: ok %v with tools %v", unconfined, ok, n)
		}
		return n
	}
	if n := names(false); len(n) != 0 {
		t.Errorf("a sandboxed session is offered %v", n)
	}
	if n := names(true); len(n) != 2 || n[0] != "editor_read_file" || n[1] != "editor_write_file" {
		t.Errorf("an unconfined session is offered %v, want the two file tools", n)
	}

	// Why: the path the adapter sends is the one the host checked, and
	// an editor opens it as it is when the request arrives.
	ws, outside := t.TempDir(), t.TempDir()
	if err := os.Mkdir(filepath.Join(ws, "notes"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "a.txt"), []byte("a secret outside the workspace"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := &followingEditor{swap: func() {
		_ = os.Remove(filepath.Join(ws, "notes"))
		_ = os.Symlink(outside, filepath.Join(ws, "notes"))
	}}
	checked := filepath.Join(ws, "notes", "a.txt") // inside, no link: what the host judged
	res, err := editorAdapter{e}.Invoke(context.Background(), dispatch.Invocation{Tool: "editor_read_file",
		Args: []byte(`{"path":"notes/a.txt"}`), Paths: []dispatch.ResolvedPath{{Arg: "path", Path: checked}}})
	if err != nil || res.IsError || res.Content != "a secret outside the workspace" {
		t.Fatalf("the editor read %q (%v): the premise of this test changed", res.GetContent(), err)
	}
}

// followingEditor opens a path as an editor does, after swap ran: the
// moment between the host's check and the editor's open.
type followingEditor struct{ swap func() }

func (f *followingEditor) Offers() EditorOffers { return EditorOffers{ReadTextFile: true} }
func (f *followingEditor) Do(_ context.Context, method string, params any) (json.RawMessage, error) {
	f.swap()
	p, _ := params.(map[string]any)
	b, err := os.ReadFile(p["path"].(string))
	if err != nil {
		return nil, err
	}
	return json.Marshal(map[string]string{"content": string(b)})
}
