package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestStateInsideWorkspaceReadOnly: the operator keeps the state inside
// the workspace (a --state under the checkout, or the default state when
// the workspace is the home directory). An approved command in
// workspace-write can neither write it nor move it aside and put another
// in its place; its own HOME (the runtime home inside the state) stays
// writable.
func TestStateInsideWorkspaceReadOnly(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	ws := t.TempDir()
	state := filepath.Join(ws, "state")
	run := func(command string) string {
		cmd := exec.Command(bin, "--state", state, "--plugin-dir", builtin, "--workspace", ws, "--sandbox", "workspace-write",
			"--approve", "allow:terminal", "tools", "call", "terminal", `{"command":`+strconv.Quote(command)+`}`)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	run("true") // makes the state
	for _, c := range []string{
		`echo evil > state/planted`,
		`mv state state-old; mkdir state; echo evil > state/planted`,
		`mkdir -p state/plugins && echo evil > state/plugins/demiurge-toolset-x`,
	} {
		out := run(c)
		for _, p := range []string{"state/planted", "state/plugins/demiurge-toolset-x", "state-old"} {
			if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
				t.Fatalf("%q made %s:\n%s", c, p, out)
			}
		}
	}
	if out := run(`echo mine > "$HOME/note" && cat "$HOME/note"`); !strings.Contains(out, "mine\n") {
		t.Errorf("the command's HOME inside the state is not writable:\n%s", out)
	}
}
