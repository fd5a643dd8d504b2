package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// TestTTYModelPromoteAnsweredOnTheTerminal: the model's evolve_core
// promote of a run that widens authority, in an interactive session on a
// real terminal (in process, and through the long-lived host), asks the
// operator there, showing the action and run; a denial moves nothing and
// the model is told, an allow moves live.
func TestTTYModelPromoteAnsweredOnTheTerminal(t *testing.T) {
	for _, mode := range []string{"off", "on"} {
		t.Run("host="+mode, func(t *testing.T) { modelPromoteOnTTY(t, mode) })
	}
}

func modelPromoteOnTTY(t *testing.T, hostMode string) {
	state, ws := t.TempDir(), t.TempDir()
	run := stateCLI(t, state)
	id := reviewedWideningRun(t, run, state)
	before := run("core", "log")

	call := `{"tool_calls": [{"id": "e%d", "name": "evolve_core", "args": "{\"action\":\"promote\",\"run_id\":\"` + id + `\"}"}]}`
	steps, err := providertest.ParseScript([]byte(`[` +
		strings.Replace(call, "%d", "1", 1) + `, {"text": ["Not promoted."]}, ` +
		strings.Replace(call, "%d", "2", 1) + `, {"text": ["Promoted."]}]`))
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.NewServer("anthropic", steps)
	t.Cleanup(srv.Close)
	env := []string{"DEMIURGE_HOST=" + hostMode, "DEMIURGE_HOST_IDLE_EXIT=2m", "ANTHROPIC_API_KEY=sk-ant-test-key-0123456789"}
	if hostMode == "on" {
		t.Cleanup(func() { stopTestHost(state) })
	}
	s := startTTYEnv(t, env, state, ws, "--model", "anthropic:claude-test", "--base-url", srv.URL)
	s.see("chatting with anthropic:claude-test")

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
	select {
	case <-s.exited:
	case <-time.After(20 * time.Second):
		t.Fatalf("the session did not end within 20s; screen:\n%s", s.hangReport())
	}
	if after := run("core", "log"); !strings.Contains(after, "evolve "+id) {
		t.Fatalf("the allowed promote did not move live:\n%s", after)
	}
	if body := string(srv.Requests()[3].Body); !regexp.MustCompile(`live is now [0-9a-f]{12} \(previous: [0-9a-f]{12}\)`).MatchString(body) {
		t.Fatalf("the model was not told live moved: %s", body)
	}
}
