package main

import (
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
	run := stateCLI(t, state)
	id := reviewedWideningRun(t, run, state)
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
