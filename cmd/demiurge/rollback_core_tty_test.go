package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTTYModelRollbackAskedOnTheTerminal: the model's rollback_core in an
// interactive session on a real terminal (in process, and through the
// long-lived host) asks the operator there; a denial moves no ref and the
// model is told, an "o" makes a new rollback commit with previous's tree
// and moves live and previous, never rewriting history.
func TestTTYModelRollbackAskedOnTheTerminal(t *testing.T) {
	inBothHostModes(t, modelRollbackOnTTY)
}

func modelRollbackOnTTY(t *testing.T, hostMode string) {
	state, ws := t.TempDir(), t.TempDir()
	cli := stateCLI(t, state)
	cli("core", "init")
	embedded := refOf(t, state, "refs/demiurge/live")
	id := runIDPattern.FindString(cli("core", "new-run", "add a skill"))
	skill := filepath.Join(state, "core/.evolve/runs", id, "agents/default/skills/notes/SKILL.md")
	if err := os.MkdirAll(filepath.Dir(skill), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(skill, []byte("---\nname: notes\ndescription: take notes\n---\nTake notes.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cli("core", "review", id)
	cli("core", "promote", id)
	promoted := refOf(t, state, "refs/demiurge/live")
	refs := func() string { return gitOut(t, state, "for-each-ref", "refs/demiurge/") }
	before := refs()

	call := `{"tool_calls": [{"id": "b%d", "name": "rollback_core", "args": "{}"}]}`
	s, srv := scriptedChatOnTTY(t, hostMode, state, ws, askedTwice(call, "Not rolled back.", "Rolled back."))

	s.line("roll the core back")
	s.see("── rollback_core")
	s.see("[d]eny")
	s.line("d")
	s.see("Not rolled back.")
	if after := refs(); after != before {
		t.Fatalf("a denied rollback moved a ref:\n%s\nwas:\n%s", after, before)
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "rollback_core was not approved") {
		t.Fatalf("the model was not told of the denial: %s", body)
	}

	s.line("roll it back now")
	s.see("── rollback_core")
	s.see("[d]eny")
	s.line("o")
	s.see("Rolled back.")
	s.line("/quit")
	s.waitExit(20 * time.Second)

	live := refOf(t, state, "refs/demiurge/live")
	if live == promoted || live == embedded {
		t.Fatalf("the allowed rollback made no new commit: live %s", live)
	}
	if got := refOf(t, state, "refs/demiurge/previous"); got != promoted {
		t.Fatalf("previous is %s, want the promoted %s", got, promoted)
	}
	if a, b := refOf(t, state, live+"^{tree}"), refOf(t, state, embedded+"^{tree}"); a != b {
		t.Fatalf("live's tree %s is not the earlier revision's %s", a, b)
	}
	if parent := refOf(t, state, live+"^"); parent != promoted {
		t.Fatalf("the rollback commit's parent is %s, want %s: history rewritten", parent, promoted)
	}
	if !strings.Contains(cli("core", "log"), "rollback to "+embedded[:12]) {
		t.Fatalf("the core log has no rollback commit:\n%s", cli("core", "log"))
	}
	if body := string(srv.Requests()[3].Body); !regexp.MustCompile(`live is now [0-9a-f]{12}, a new commit with the tree of ` + embedded[:12]).MatchString(body) {
		t.Fatalf("the model was not told live moved: %s", body)
	}
}

// gitOut runs real git on the state's core repository.
func gitOut(t *testing.T, state string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir", filepath.Join(state, "core/repo.git")}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// refOf is the object id rev names in the state's core repository.
func refOf(t *testing.T, state, rev string) string {
	t.Helper()
	return strings.TrimSpace(gitOut(t, state, "rev-parse", "--verify", rev))
}
