package turn_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
	"demiurge.dev/host/untrusted"
)

var boundaryIn = regexp.MustCompile(`^<untrusted-data origin="workspace:[^"]*notes.txt" boundary="([A-Z2-7]{20})"`)

// TestOneBoundaryPerTurn: the steps of one model turn wrap untrusted
// results with the same random boundary, the next turn with another, and
// every request explains the envelope.
func TestOneBoundaryPerTurn(t *testing.T) {
	core := t.TempDir()
	if err := os.WriteFile(filepath.Join(core, "agent.yaml"), []byte("toolsets: [coding]\ncapabilities: [fs.read]\ntools:\n  untrusted_reads: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("plain notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	read := `{"path":"notes.txt"}`
	replies := []providers.Reply{
		calls(call("c1", "read_file", read)), calls(call("c2", "read_file", read)), answer("one"),
		calls(call("c3", "read_file", read)), answer("two"),
	}
	model := &script{step: func(n int, _ providers.Request) (providers.Reply, error) { return replies[n-1], nil }}
	h, err := toolhost.Open(toolhost.Options{CoreDir: core, Workspace: ws, StateDir: t.TempDir(), BuiltinPluginDir: pluginDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	loop := &turn.Loop{Provider: model, Session: h.Session(), Store: store}
	defer loop.Close()
	for _, p := range []string{"first", "second"} {
		if _, err := loop.Run(context.Background(), p, &recorder{}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := model.requests()
	boundaries := []string{}
	for i, req := range reqs {
		if !strings.HasSuffix(req.System, untrusted.Instructions) {
			t.Errorf("request %d does not explain the envelope: %q", i, req.System)
		}
		last := req.Messages[len(req.Messages)-1]
		if res := last.ToolResults; last.Role == providers.RoleTool && len(res) == 1 {
			m := boundaryIn.FindStringSubmatch(res[0].Content)
			if m == nil || !strings.Contains(res[0].Content, "plain notes") {
				t.Fatalf("request %d: result not wrapped: %q", i, res[0].Content)
			}
			boundaries = append(boundaries, m[1])
		}
	}
	if len(boundaries) != 3 || boundaries[0] != boundaries[1] || boundaries[1] == boundaries[2] {
		t.Fatalf("boundaries %q: want the first two equal (one turn) and the third different", boundaries)
	}
}
