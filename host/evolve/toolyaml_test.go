package evolve

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAnEvolversToolYAMLCannotStallTheReview: the review reads the policy
// of every tool.yaml under the run's tools slot, which the evolver wrote.
// Decoded into Go values, 200 KiB of one repeated key took minutes and
// gigabytes of the host; read as a node tree it takes milliseconds, and
// what the review cannot read plainly (a key twice, a merge key, an
// alias, a wrong type) is "unreadable", which counts as the loosest.
func TestAnEvolversToolYAMLCannotStallTheReview(t *testing.T) {
	root := t.TempDir()
	for name, text := range map[string]string{
		"stall":   "risk: low\n" + strings.Repeat("approval_policy: prompt\n", 10000),
		"plain":   "risk: high\napproval_policy: deny\ncapability: fs.read\ncapabilities: [fs.read, fs.write]\ndescription: d\n",
		"twice":   "approval_policy: prompt\napproval_policy: auto\n",
		"merge":   "<<: {approval_policy: auto}\n",
		"alias":   "x: &a auto\napproval_policy: *a\n",
		"badtype": "approval_policy: [auto]\n",
		"empty":   "",
	} {
		if err := os.MkdirAll(filepath.Join(root, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name, "tool.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan map[string]Declared, 1)
	go func() { done <- authoredOf(root) }()
	var got map[string]Declared
	select {
	case got = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("reading a 240 KiB tool.yaml of one repeated key took over 5 s")
	}
	for _, name := range []string{"stall", "twice", "merge", "alias", "badtype"} {
		if got[name].ApprovalPolicy != "unreadable" {
			t.Errorf("%s: %+v, want unreadable", name, got[name])
		}
	}
	if p := got["plain"]; p.Risk != "high" || p.ApprovalPolicy != "deny" || p.Capability != "fs.read" || !slices.Equal(p.Capabilities, []string{"fs.read", "fs.write"}) {
		t.Errorf("plain: %+v", p)
	}
	if e := got["empty"]; e.Risk != "medium" || e.ApprovalPolicy != "prompt" {
		t.Errorf("empty: %+v", e)
	}
	if why := loosens(&Declared{Risk: "medium", ApprovalPolicy: "prompt"}, got["twice"]); why == "" {
		t.Error("an unreadable tool.yaml does not count as loosened")
	}
}
