package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

// stateCLI runs the real binary in process (no host) on state and returns
// its output; a failing command fails the test.
func stateCLI(t *testing.T, state string) func(args ...string) string {
	builtin, _ := testPlugins(t)
	return func(args ...string) string {
		t.Helper()
		cmd := exec.Command(demiurgeBinary(t), append([]string{"--state", state, "--plugin-dir", builtin}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DEMIURGE_HOST=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("demiurge %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
}

var runIDPattern = regexp.MustCompile(`run_[0-9a-f]{16}`)

// reviewedWideningRun makes a fresh core on state and a reviewed run
// whose only change adds the approval rule allow:write_file to the
// default core: a change that widens authority.
func reviewedWideningRun(t *testing.T, cli func(args ...string) string, state string) string {
	t.Helper()
	cli("core", "init")
	id := runIDPattern.FindString(cli("core", "new-run", "widen an approval"))
	agent := filepath.Join(state, "core/.evolve/runs", id, "agents/default/agent.yaml")
	y, err := os.ReadFile(agent)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(agent, append(y, "approvals: [\"allow:write_file\"]\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	cli("core", "review", id)
	return id
}

// inBothHostModes runs f as subtests in process (DEMIURGE_HOST=off) and
// through the long-lived host (on).
func inBothHostModes(t *testing.T, f func(t *testing.T, hostMode string)) {
	for _, mode := range []string{"off", "on"} {
		t.Run("host="+mode, func(t *testing.T) { f(t, mode) })
	}
}

// scriptedChatOnTTY starts an interactive session on a pty chatting with
// a scripted Anthropic model that answers steps, in process or through
// the state's long-lived host (stopped when the test ends), and waits
// until it chats.
func scriptedChatOnTTY(t *testing.T, hostMode, state, ws, steps string) (*ttySession, *providertest.Server) {
	t.Helper()
	script, err := providertest.ParseScript([]byte(steps))
	if err != nil {
		t.Fatal(err)
	}
	srv := providertest.NewServer("anthropic", script)
	t.Cleanup(srv.Close)
	env := []string{"DEMIURGE_HOST=" + hostMode, "DEMIURGE_HOST_IDLE_EXIT=2m", "ANTHROPIC_API_KEY=sk-ant-test-key-0123456789"}
	if hostMode == "on" {
		t.Cleanup(func() { stopTestHost(state) })
	}
	s := startTTYEnv(t, env, state, ws, "--model", "anthropic:claude-test", "--base-url", srv.URL)
	if hostMode == "on" {
		s.scr.waitFor(t, "in the host (pid ", 0)
	}
	s.see("chatting with anthropic:claude-test")
	return s, srv
}

// askedTwice is a script in which the model makes call (a tool_calls
// step whose ids end in %d) twice, saying denied after the first and
// allowed after the second.
func askedTwice(call, denied, allowed string) string {
	return `[` + strings.Replace(call, "%d", "1", 1) + `, {"text": ["` + denied + `"]}, ` +
		strings.Replace(call, "%d", "2", 1) + `, {"text": ["` + allowed + `"]}]`
}
