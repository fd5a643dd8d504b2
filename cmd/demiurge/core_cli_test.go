package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
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
