package main

import (
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// TestTTYQuitTypedWhileATurnRunsEnds: "/quit" typed while a turn runs is
// queued and ends the session when the turn ends. By then the session has
// asked the terminal for the next line (the busy turn's read, left in
// flight); closing the line editor once waited for that read, so the
// session hung until a key was pressed (the pty tests' "did not end
// within 20s" when their last "/quit" came before the turn had ended).
// In process and through the long-lived host.
func TestTTYQuitTypedWhileATurnRunsEnds(t *testing.T) {
	for _, host := range []string{"off", "on"} {
		t.Run("host="+host, func(t *testing.T) {
			steps, err := providertest.ParseScript([]byte(`[
  {"tool_calls": [{"id": "toolu_1", "name": "terminal", "args": "{\"command\":\"echo $((6*7))-waiting; sleep 2\"}"}]},
  {"text": ["Done sleeping."]}
]`))
			if err != nil {
				t.Fatal(err)
			}
			srv := providertest.NewServer("anthropic", steps)
			t.Cleanup(srv.Close)
			state, ws := t.TempDir(), t.TempDir()
			if host == "on" {
				t.Cleanup(func() { stopTestHost(state) })
			}
			env := []string{"DEMIURGE_HOST=" + host, "DEMIURGE_HOST_IDLE_EXIT=2m", "ANTHROPIC_API_KEY=sk-ant-test-key-0123456789"}
			s := startTTYEnv(t, env, state, ws, "--model", "anthropic:claude-test", "--base-url", srv.URL, "--approve", "allow:terminal")
			s.line("run it")
			s.see("42-waiting")
			s.line("/quit")
			s.see("queued: it runs when the running turn ends")
			s.see("Done sleeping.")
			s.waitExit(20 * time.Second)
		})
	}
}
