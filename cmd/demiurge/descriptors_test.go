package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInheritedDescriptorReachesNoCommand: a descriptor the operator's
// shell left open for demiurge (here fd 7, a file with a marker) reaches
// neither the coding plugin nor the terminal command it runs, sandboxed
// or not: the host and the plugin mark what they inherited
// close-on-exec, the sandbox helper closes the rest.
func TestInheritedDescriptorReachesNoCommand(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	held := filepath.Join(t.TempDir(), "held")
	if err := os.WriteFile(held, []byte("OPERATOR-SHELL-DESCRIPTOR\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"off", "workspace-write"} {
		f, err := os.Open(held)
		if err != nil {
			t.Fatal(err)
		}
		ws := t.TempDir()
		cmd := exec.Command(bin, "--state", t.TempDir(), "--plugin-dir", builtin, "--workspace", ws, "--sandbox", mode,
			"--approve", "allow:terminal", "tools", "call", "terminal", `{"command":"ls /proc/self/fd | tr '\\n' ' '; echo; ls -l /proc/$PPID/fd | grep -c held"}`)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		// fd 7 in demiurge, without close-on-exec (low numbers are taken
		// by the descriptors demiurge passes a plugin on purpose).
		cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, f}
		out, err := cmd.CombinedOutput()
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		if !strings.Contains(string(out), "0 1 2 3 \n0") {
			t.Errorf("--sandbox %s: the command (or its shell) holds more than stdio and ls's own descriptor:\n%s", mode, out)
		}
	}
}
