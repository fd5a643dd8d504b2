package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTTYEvolveActionsAskedOnTheTerminal: the prompts evolve_core puts to
// an interactive operator besides promote's, on a real terminal, in
// process and through the long-lived host (the same prompts, the same
// outcomes). start asks before any run exists (a denial makes none); the
// evolver it runs is a child whose own writes ask the same terminal,
// naming it and the run's goal (an "o" writes the skill into the run's
// work tree, a "d" keeps agent.yaml as it was); review asks naming the
// run, and a session allow of that review does not cover the discard of
// the same run, which asks again (a "d" keeps it).
func TestTTYEvolveActionsAskedOnTheTerminal(t *testing.T) {
	inBothHostModes(t, evolveActionsOnTTY)
}

func evolveActionsOnTTY(t *testing.T, hostMode string) {
	state, ws := t.TempDir(), t.TempDir()
	cli := stateCLI(t, state)
	cli("core", "init")

	// Session one: start, denied and then allowed; the evolver's writes.
	s, srv := scriptedChatOnTTY(t, hostMode, state, ws, `[
  {"tool_calls": [{"id": "p1", "name": "evolve_core", "args": "{\"action\":\"start\",\"goal\":\"first goal\"}"}]},
  {"text": ["Not started."]},
  {"tool_calls": [{"id": "p2", "name": "evolve_core", "args": "{\"action\":\"start\",\"goal\":\"add a skill for release notes\"}"}]},
  {"for": "You are the evolver", "tool_calls": [{"id": "e1", "name": "write_file", "args": "{\"path\":\"default/skills/release-notes/SKILL.md\",\"content\":\"---\\nname: release-notes\\ndescription: write release notes\\n---\\nList the changes.\\n\",\"create_dirs\":true}"}]},
  {"for": "You are the evolver", "tool_calls": [{"id": "e2", "name": "write_file", "args": "{\"path\":\"default/agent.yaml\",\"content\":\"name: default\\ntoolsets: [coding, demiurge_control]\\napprovals: [\\\"allow:write_file\\\"]\\n\"}"}]},
  {"for": "You are the evolver", "text": ["I added the skill."]},
  {"text": ["Started a run."]}
]`)

	s.line("evolve yourself")
	s.see("── evolve_core")
	s.see("start")
	s.see("[d]eny")
	s.line("d")
	s.see("Not started.")
	if out := cli("core", "runs"); strings.Contains(out, "run_") {
		t.Fatalf("a denied start made a run:\n%s", out)
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "evolve_core was not approved") {
		t.Fatalf("the model was not told of the denial: %s", body)
	}

	s.line("evolve yourself, please")
	s.see("── evolve_core")
	s.see("[d]eny")
	s.line("o")
	// The evolver's first write asks here, naming the child and the run's
	// goal (not the evolver's standing instructions around it).
	s.see("asked by child agent ses_")
	s.see("(depth 1), goal: add a skill for release notes")
	s.see("release-notes/SKILL.md")
	s.see("[d]eny")
	s.line("o")
	s.see("asked by child agent ses_")
	s.see("default/agent.yaml")
	s.see("[d]eny")
	s.line("d")
	s.see("Started a run.")
	s.line("/quit")
	s.waitExit(20 * time.Second)

	id := runIDPattern.FindString(cli("core", "runs"))
	if id == "" {
		t.Fatal("the allowed start made no run")
	}
	work := filepath.Join(state, "core/.evolve/runs", id, "agents/default")
	if b, err := os.ReadFile(filepath.Join(work, "skills/release-notes/SKILL.md")); err != nil || !strings.Contains(string(b), "List the changes.") {
		t.Fatalf("the approved write is not in the run's work tree: %q, %v", b, err)
	}
	if b, err := os.ReadFile(filepath.Join(work, "agent.yaml")); err != nil || strings.Contains(string(b), "allow:write_file") {
		t.Fatalf("the denied write changed agent.yaml: %q, %v", b, err)
	}
	if n := srv.Remaining(); n != 0 {
		t.Fatalf("%d scripted steps left", n)
	}

	// Session two: review allowed for the session; the discard of the same
	// run asks again, and a denial keeps the run.
	call := func(n int, action string) string {
		return `{"tool_calls": [{"id": "r` + string(rune('0'+n)) + `", "name": "evolve_core", "args": "{\"action\":\"` + action + `\",\"run_id\":\"` + id + `\"}"}]}`
	}
	s, srv2 := scriptedChatOnTTY(t, hostMode, state, ws, `[`+call(1, "review")+`, {"text": ["Reviewed."]}, `+call(2, "discard")+`, {"text": ["Kept."]}]`)
	s.line("review the run")
	s.see("── evolve_core")
	s.see(id)
	s.see("[s]ession")
	s.line("s")
	s.see("Reviewed.")
	if out := cli("core", "runs"); !regexp.MustCompile(id + ` +reviewed `).MatchString(out) {
		t.Fatalf("the allowed review did not record the run:\n%s", out)
	}
	s.line("discard the run")
	s.see("── evolve_core")
	s.see("discard")
	s.see("[d]eny")
	s.line("d")
	s.see("Kept.")
	s.line("/quit")
	s.waitExit(20 * time.Second)
	if out := cli("core", "runs"); !regexp.MustCompile(id + ` +reviewed `).MatchString(out) {
		t.Fatalf("a denied discard removed the run:\n%s", out)
	}
	if body := string(srv2.Requests()[3].Body); !strings.Contains(body, "evolve_core was not approved") {
		t.Fatalf("the model was not told of the denied discard: %s", body)
	}
}
