package terminal

import (
	"strings"
	"testing"

	"demiurge.dev/shared/sandbox"
)

// TestCommandInheritsNoDescriptor: the runner pins the working directory
// by a descriptor; neither it nor anything else the plugin holds reaches
// the command's shell, unsandboxed or through the helper.
func TestCommandInheritsNoDescriptor(t *testing.T) {
	helper := sandboxHelper(t)
	ws, tmp := t.TempDir(), t.TempDir()
	// ls holds one descriptor of its own (3, the directory it lists).
	script := `ls /proc/self/fd`
	for _, pol := range []*sandbox.Policy{nil, {Mode: sandbox.ReadOnly, Workspace: ws, TmpDir: tmp}, {Mode: sandbox.WorkspaceWrite, Workspace: ws, TmpDir: tmp}} {
		req := Request{Command: script, Dir: ws, Root: ws, Sandbox: pol}
		if pol != nil {
			req.SandboxHelper = helper
		}
		_, rec := run(t, quickRunner(), req)
		out := rec.stream("stdout")
		if got := strings.Join(strings.Fields(out), " "); got != "0 1 2 3" {
			t.Errorf("sandbox %v: the command holds descriptors %q (stderr %q); want 0 1 2 and ls's own 3", pol, got, rec.stream("stderr"))
		}
	}
}
