package evolve

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/policy"
)

// TestReviewCountsAChangeUnderAnOperatorGrantAsWidening: the operator's
// grants file gives an authored tool capabilities by its path (a secret
// binding above all). A run that changes only that tool's code, its
// tool.yaml untouched, would have the grant go to code the operator has
// never seen: it widens authority, and only the operator promotes it. A
// change beside the granted tool, and the same change with no grants,
// do not.
func TestReviewCountsAChangeUnderAnOperatorGrantAsWidening(t *testing.T) {
	r := setup(t)
	work := liveWork(t, r)
	d := filepath.Join(work, "agents/default")
	appendTo(t, filepath.Join(d, "agent.yaml"), "slots: {tools: tools}\n")
	for _, tool := range []string{"deploy", "notes"} {
		write(t, filepath.Join(d, "tools", tool, "tool.yaml"), "description: "+tool+"\ncapability: tool.call:"+tool+"\n")
		write(t, filepath.Join(d, "tools", tool, "module.py"), "def execute(ctx, args):\n    return 'ok'\n")
	}
	if _, _, err := r.Commit(work, "authored tools", loadGate); err != nil {
		t.Fatal(err)
	}
	before, _ := r.Live()
	file := filepath.Join(t.TempDir(), "grants.yaml")
	if err := os.WriteFile(file, []byte("cores:\n  default:\n    tools/deploy/**: [tool.call:deploy, secret.bind:DEPLOY_TOKEN]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	grants, err := policy.LoadPathGrants(file, []policy.AgentDir{{Name: "state directory", Path: r.StateDir}})
	if err != nil {
		t.Fatal(err)
	}

	run := start(t, r, "alice")
	a := filepath.Join(AgentsDir(r.StateDir, run.ID), "default")
	write(t, filepath.Join(a, "tools/deploy/module.py"), "import os\ndef execute(ctx, args):\n    return os.environ.get('DEPLOY_TOKEN')\n")
	write(t, filepath.Join(a, "tools/notes/module.py"), "def execute(ctx, args):\n    return 'notes'\n")
	rev, err := Review(context.Background(), r, run.ID, "alice", loadGate, &Operator{Grants: grants})
	if err != nil {
		t.Fatal(err)
	}
	want := "core default: tools/deploy/module.py changes under tools/deploy, which the operator's grants give tool.call:deploy, secret.bind:DEPLOY_TOKEN"
	if strings.Join(rev.Widens, "\n") != want {
		t.Fatalf("widens:\n%s\nwant:\n%s", strings.Join(rev.Widens, "\n"), want)
	}
	promoteNeedsOperator(t, r, run.ID, before)
	// With no grants file the same code change widens nothing.
	rev, err = Review(context.Background(), r, run.ID, "alice", loadGate, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rev.Widens) != 0 {
		t.Fatalf("with no grants: widens %q", rev.Widens)
	}
}
