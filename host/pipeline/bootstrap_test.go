package pipeline

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"demiurge.dev/host/core"
)

// recordingInvoker is a funcInvoker that is also a Recorder.
type recordingInvoker struct {
	funcInvoker
	mu   sync.Mutex
	runs []SlotRun
}

func (r *recordingInvoker) SlotRan(_ context.Context, run SlotRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.runs = append(r.runs, run)
}

func bootstrapCore(stage ...core.Group) *core.Core {
	c := core.Default()
	c.Pipelines.File = "/c/pipelines.yaml"
	c.Pipelines.Bootstrap = stage
	c.Slots = map[string]*core.Slot{}
	for _, id := range c.Pipelines.Slots(stage) {
		if !hostSlot(id) {
			c.Slots[id] = slot(id, core.FailFail)
		}
	}
	return c
}

// Authored bootstrap slots run: their parts join the snapshot in declared
// order beside project_instructions, a parallel group's at once; without
// an invoker they are refused, never skipped.
func TestRunBootstrapAuthoredSlots(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "AGENTS.md"), "root rules\n")
	c := bootstrapCore(core.Group{"repo_map"}, core.Group{core.ProjectInstructions}, core.Group{"slow", "fast"})
	c.Revision = "rev1"
	inv := &recordingInvoker{funcInvoker: func(ctx context.Context, s *core.Slot, in SlotInput) (string, error) {
		if in.Stage != StageBootstrap || in.Text != "" {
			return "", errors.New("wrong input")
		}
		return `{"context": "part of ` + s.ID + `"}`, nil
	}}
	snap, err := RunBootstrap(context.Background(), c, Workspace{Root: ws}, ws, inv)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, p := range snap.Parts {
		order = append(order, p.Slot)
	}
	if strings.Join(order, ",") != "repo_map,project_instructions,slow,fast" || snap.CoreRevision != "rev1" {
		t.Fatalf("parts %v (%+v)", order, snap)
	}
	text := snap.Text()
	if i, j := strings.Index(text, "part of repo_map"), strings.Index(text, "root rules"); i < 0 || j < i || !strings.HasSuffix(text, "part of slow\n\npart of fast") {
		t.Fatalf("text:\n%s", text)
	}
	if len(inv.runs) != 3 {
		t.Fatalf("recorded %d runs, want 3: %+v", len(inv.runs), inv.runs)
	}
	for _, r := range inv.runs {
		if r.Stage != StageBootstrap || r.Outcome != OutcomeOK || r.Err != nil || r.Duration <= 0 {
			t.Errorf("run %+v", r)
		}
	}
	if _, err := Bootstrap(c, Workspace{Root: ws}, ws); !errors.Is(err, ErrAuthoredSlots) {
		t.Fatalf("Bootstrap without an invoker: %v", err)
	}
}

// A bootstrap slot that fails under each failure_policy, refuses, or
// returns what a bootstrap change cannot be.
func TestRunBootstrapFailures(t *testing.T) {
	inv := &recordingInvoker{funcInvoker: func(ctx context.Context, s *core.Slot, in SlotInput) (string, error) {
		switch s.ID {
		case "raises":
			return "", errors.New("raised OSError: no map")
		case "hangs":
			<-ctx.Done()
			return "", ctx.Err()
		case "replaces":
			return `{"replace": "x"}`, nil
		case "places":
			return `{"context": "x", "placement": "message"}`, nil
		case "refuses":
			return `{"refuse": "the workspace is not a checkout"}`, nil
		}
		return `{"context": "good part"}`, nil
	}}
	for _, tt := range []struct{ bad, policy, want, outcome string }{
		{"raises", core.FailFail, "pipeline slot raises failed: raised OSError: no map", OutcomeError},
		{"hangs", core.FailFail, "pipeline slot hangs failed: did not finish within timeout_seconds (1s)", OutcomeTimeout},
		{"replaces", core.FailFail, `returned "replace" in the bootstrap stage`, OutcomeMalformed},
		{"places", core.FailFail, `returned "placement" in the bootstrap stage`, OutcomeMalformed},
		{"refuses", core.FailSkip, "pipeline slot refuses refused: the workspace is not a checkout", OutcomeRefused},
		{"raises", core.FailSkip, "", OutcomeError},
		{"hangs", core.FailSkip, "", OutcomeTimeout},
		{"replaces", core.FailSkip, "", OutcomeMalformed},
	} {
		t.Run(tt.bad+"/"+tt.policy, func(t *testing.T) {
			inv.runs = nil
			c := bootstrapCore(core.Group{"good", tt.bad})
			c.Slots[tt.bad].FailurePolicy = tt.policy
			snap, err := RunBootstrap(context.Background(), c, Workspace{Root: t.TempDir()}, "/", inv)
			var bad SlotRun
			for _, r := range inv.runs {
				if r.Slot == tt.bad {
					bad = r
				}
			}
			if bad.Outcome != tt.outcome || bad.FailurePolicy != tt.policy {
				t.Errorf("recorded %+v; want outcome %s", bad, tt.outcome)
			}
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v; want %q", err, tt.want)
				}
				return
			}
			if err != nil || len(snap.Parts) != 1 || snap.Parts[0].Slot != "good" ||
				len(snap.Notes) != 1 || !strings.HasPrefix(snap.Notes[0], "bootstrap slot "+tt.bad+" skipped (failure_policy skip): ") {
				t.Fatalf("skip: %+v %v", snap, err)
			}
		})
	}
}

// CheckRunnable refuses a pipeline naming a slot the core lacks (a core
// put together in code; the loader refuses it in pipelines.yaml).
func TestCheckRunnableRefusesAMissingSlot(t *testing.T) {
	c := bootstrapCore(core.Group{"a"})
	c.Pipelines.Output = append(c.Pipelines.Output, core.Group{"gone"})
	if err := CheckRunnable(c); err == nil || err.Error() != "/c/pipelines.yaml: names slots the core does not have (no slots/<id>/slot.yaml): gone" {
		t.Fatalf("CheckRunnable: %v", err)
	}
	delete(c.Slots, "a")
	c.Pipelines.Output = c.Pipelines.Output[:1]
	if _, err := RunBootstrap(context.Background(), c, Workspace{Root: t.TempDir()}, "/", funcInvoker(nil)); err == nil {
		t.Fatal("ran a bootstrap stage naming a slot the core lacks")
	}
}
