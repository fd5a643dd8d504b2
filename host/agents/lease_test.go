package agents_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/agents"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/schedule"
)

// A scheduled run's child, of its own core or another, stays within the
// run's lease: a read the lease does not cover is denied, though outside
// a scheduled run the same read runs unasked.
func TestScheduledRunsChildStaysWithinTheLease(t *testing.T) {
	state := repoWithCores(t, map[string]string{"reviewer": reviewerCore})
	for _, core := range []string{"", "reviewer"} {
		goal := "read for " + core + "x"
		f := newFixtureState(t, agents.Limits{}, []pt.Step{
			child(goal, pt.Step{ToolCalls: []pt.ToolCall{
				{ID: "r1", Name: "read_file", Args: `{"path":"secret.txt"}`},
				{ID: "r2", Name: "read_file", Args: `{"path":"ci/log.txt"}`},
			}}),
			child(goal, pt.Step{Text: []string{"done"}}),
		}, "", state)
		f.write(t, "secret.txt", "the secret")
		if err := mkdirWrite(f.ws, "ci/log.txt", "CI log line"); err != nil {
			t.Fatal(err)
		}
		lease := schedule.Lease{Tools: []string{"read_file"}, Paths: []string{"ci/**"}}
		root, err := f.gate.SpawnRoot(context.Background(), agents.RootRequest{Tools: []string{"read_file", "delegate_task"}, Judge: lease.Judge})
		if err != nil {
			t.Fatal(err)
		}
		run := root.Session
		c, err := spawn(t, f, run, "turn_l", agents.Request{Goal: goal, CoreID: core})
		if err != nil {
			t.Fatal(err)
		}
		if r := wait(t, c); r.Status != agents.StatusCompleted {
			t.Fatalf("core %q: %+v", core, r)
		}
		reqs := f.srv.Requests()
		last := string(reqs[len(reqs)-1].Body)
		if strings.Contains(last, "the secret") || !strings.Contains(last, "CI log line") {
			t.Fatalf("core %q: the child read outside its run's lease, or not inside it: %s", core, last)
		}
		f.h.Close()
	}
}

func mkdirWrite(root, rel, content string) error {
	p := filepath.Join(root, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(content), 0o644)
}
