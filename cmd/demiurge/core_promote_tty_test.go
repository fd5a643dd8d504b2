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

// TestTTYPromoteOfAWideningRunAsksTheOperator: `core promote` of a run
// that widens authority asks the operator at the terminal, showing how it
// widens; a declined answer moves nothing, an allow moves live.
func TestTTYPromoteOfAWideningRunAsksTheOperator(t *testing.T) {
	builtin, _ := testPlugins(t)
	state := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(demiurgeBinary(t), append([]string{"--state", state, "--plugin-dir", builtin}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "DEMIURGE_HOST=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("demiurge %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	run("core", "init")
	id := regexp.MustCompile(`run_[0-9a-f]{16}`).FindString(run("core", "new-run", "widen an approval"))
	agent := filepath.Join(state, "core/.evolve/runs", id, "agents/default/agent.yaml")
	y, err := os.ReadFile(agent)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(agent, append(y, "approvals: [\"allow:write_file\"]\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	run("core", "review", id)
	before := run("core", "log")

	promote := func(answer, want string) {
		t.Helper()
		s := startOneShot(t, []string{"DEMIURGE_HOST=off"}, "--state", state, "--plugin-dir", builtin, "core", "promote", id)
		s.see("widens authority")
		s.see("core default: adds approval rule allow:write_file")
		s.see("[d]eny")
		s.line(answer)
		s.see(want)
		s.waitExit(20 * time.Second)
	}
	promote("d", "not promoted: the operator declined")
	if after := run("core", "log"); after != before {
		t.Fatalf("a declined promote moved live:\n%s", after)
	}
	promote("o", "live: ")
	if after := run("core", "log"); !strings.Contains(after, "evolve "+id) {
		t.Fatalf("the allowed promote did not move live:\n%s", after)
	}
}
