package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxStatusWithoutLandlock builds the CLI with the test-only tag
// that makes detection see no Landlock (nothing in a file, a flag or the
// environment can do this) and checks that status fails closed: no mode is
// effective, unasked commands have no sandbox, and it names what lacks.
func TestSandboxStatusWithoutLandlock(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := filepath.Join(t.TempDir(), "demiurge-nolandlock")
	if out, err := exec.Command("go", "build", "-tags", "demiurge_nolandlock", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--plugin-dir", builtin, "sandbox", "status", "--json").Output()
	if err != nil {
		t.Fatalf("status: %v", err)
	}
	var st struct {
		ABI       int      `json:"landlock_abi"`
		Effective string   `json:"effective_mode"`
		Unasked   string   `json:"unasked_mode"`
		Missing   []string `json:"missing"`
		Notes     []string `json:"notes"`
	}
	if err := json.Unmarshal(out, &st); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if st.ABI != 0 || st.Effective != "none" || st.Unasked != "none" {
		t.Errorf("status without landlock: %s", out)
	}
	if !strings.Contains(strings.Join(st.Missing, "|"), "landlock filesystem rules") {
		t.Errorf("missing does not name landlock: %q", st.Missing)
	}
	if !strings.Contains(strings.Join(st.Notes, "|"), "demiurge_nolandlock") {
		t.Errorf("notes do not say the test build forced it: %q", st.Notes)
	}
}
