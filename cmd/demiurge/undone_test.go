package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSandboxUndoneIsShownAndAudited: in a workspace without .git an
// approved command creates .git/hooks/pre-commit. The sandbox cannot hold
// a path that did not exist, so its helper moves .git aside once the
// command has ended; the card, the model's view and the audit event say
// so, and the call is not a plain success.
func TestSandboxUndoneIsShownAndAudited(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	ws, state := t.TempDir(), t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command(bin, append([]string{"--state", state, "--plugin-dir", builtin, "--workspace", ws, "--sandbox", "workspace-write",
			"--approve", "allow:terminal"}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	// An ordinary-looking script: the guard cannot see what it writes.
	script := "mkdir -p .git/hooks && printf '#!/bin/sh\\necho owned\\n' > .git/hooks/pre-commit && echo planted\n"
	if err := os.WriteFile(filepath.Join(ws, "build.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	command := "sh build.sh"
	card := run("tools", "call", "terminal", `{"command":`+strconv.Quote(command)+`}`)
	if _, err := os.Lstat(filepath.Join(ws, ".git")); err == nil {
		t.Fatalf("the created .git stayed in place:\n%s", card)
	}
	moved, _ := filepath.Glob(filepath.Join(ws, ".git.demiurge-quarantine-*"))
	if len(moved) != 1 {
		t.Fatalf("moved aside: %v\n%s", moved, card)
	}
	want := "UNDONE by the sandbox: the command created " + filepath.Join(ws, ".git") + ", which git reads"
	if !strings.Contains(card, want) || !strings.Contains(card, "moved to "+moved[0]) {
		t.Errorf("the card does not say what the sandbox undid (want %q):\n%s", want, card)
	}
	if js := run("tools", "call", "--json", "terminal", `{"command":`+strconv.Quote(command)+`}`); !strings.Contains(js, `sandbox_undid`) {
		t.Errorf("the model's view does not say what the sandbox undid:\n%s", js)
	}
	audit := run("audit", "--json", "--tool", "terminal")
	if !strings.Contains(audit, `"sandbox_undid": [`) || !strings.Contains(audit, "the command created "+filepath.Join(ws, ".git")) {
		t.Errorf("the audit does not say what the sandbox undid:\n%s", audit)
	}
	if !strings.Contains(audit, `"is_error": true`) {
		t.Errorf("the audit shows the undone call as a plain success:\n%s", audit)
	}
}
