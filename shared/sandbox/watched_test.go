package sandbox

import (
	"strings"
	"testing"
)

// A watched path is moved aside when a command created it: the helper
// takes only paths inside the workspace (never the workspace itself),
// so a launcher's mistake cannot make it rename anything else.
func TestWatchedPathsStayInsideTheWorkspace(t *testing.T) {
	ok := Policy{Mode: WorkspaceWrite, Workspace: "/ws", TmpDir: "/tmp/t", Watched: []string{"/ws/.gitconfig", "/ws/.husky"}}
	if err := ok.Validate(); err != nil {
		t.Fatalf("watched paths inside the workspace: %v", err)
	}
	for _, w := range []string{"/etc/passwd", "/ws", "/ws/../etc", "relative", "/wsx/a"} {
		p := ok
		p.Watched = []string{w}
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "watched path") {
			t.Errorf("watched %q: Validate = %v, want it refused", w, err)
		}
	}
}
