package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

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
