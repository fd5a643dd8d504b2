package main

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTTYModelPromoteAnsweredOnTheTerminal: the model's evolve_core
// promote of a run that widens authority, in an interactive session on a
// real terminal (in process, and through the long-lived host), asks the
// operator there, showing the action and run; a denial moves nothing and
// the model is told, an allow moves live.
func TestTTYModelPromoteAnsweredOnTheTerminal(t *testing.T) {
	inBothHostModes(t, modelPromoteOnTTY)
}

func modelPromoteOnTTY(t *testing.T, hostMode string) {
	state, ws := t.TempDir(), t.TempDir()
	run := stateCLI(t, state)
	id := reviewedWideningRun(t, run, state)
	before := run("core", "log")

	call := `{"tool_calls": [{"id": "e%d", "name": "evolve_core", "args": "{\"action\":\"promote\",\"run_id\":\"` + id + `\"}"}]}`
	s, srv := scriptedChatOnTTY(t, hostMode, state, ws, askedTwice(call, "Not promoted.", "Promoted."))

	s.line("promote the run")
	s.see("── evolve_core")
	s.see(id)
	s.see("[d]eny")
	s.line("d")
	s.see("Not promoted.")
	s.see("2 out this session")
	if after := run("core", "log"); after != before {
		t.Fatalf("a denied promote moved live:\n%s", after)
	}
	if body := string(srv.Requests()[1].Body); !strings.Contains(body, "evolve_core was not approved") {
		t.Fatalf("the model was not told of the denial: %s", body)
	}

	s.line("promote it now")
	s.see("── evolve_core")
	s.see("[d]eny")
	s.line("o")
	s.see("Promoted.")
	s.see("4 out this session") // the turn has ended: /quit is not queued behind it
	s.line("/quit")
	s.waitExit(20 * time.Second)
	if after := run("core", "log"); !strings.Contains(after, "evolve "+id) {
		t.Fatalf("the allowed promote did not move live:\n%s", after)
	}
	if body := string(srv.Requests()[3].Body); !regexp.MustCompile(`live is now [0-9a-f]{12} \(previous: [0-9a-f]{12}\)`).MatchString(body) {
		t.Fatalf("the model was not told live moved: %s", body)
	}
}
