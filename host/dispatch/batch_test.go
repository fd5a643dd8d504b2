package dispatch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
)

// fixtureWriteMeta prompts for the fixture's meet_write, as for any write.
func fixtureWriteMeta(tool string) catalog.Metadata {
	if tool == "meet_write" {
		return catalog.Metadata{Risk: catalog.RiskMedium, Capability: "fs.write", ApprovalPolicy: catalog.ApprovalPrompt}
	}
	return autoMeta(tool)
}

// byCall answers each approval by call id, and records the order asked.
type byCall struct {
	mu      sync.Mutex
	answers map[string]approval.Answer
	asked   []string
}

func (p *byCall) Name() string { return "scripted" }
func (p *byCall) Ask(_ context.Context, r approval.Request) (approval.Answer, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.asked = append(p.asked, r.CallID)
	if a, ok := p.answers[r.CallID]; ok {
		return a, nil
	}
	return approval.Deny, nil
}

// meet builds a meet_read/meet_write call: it reports "met" only if count
// calls of the batch were running at the same time.
func meet(t *testing.T, tool, id, path, dir string, count int, content string) ToolCall {
	t.Helper()
	args, err := json.Marshal(map[string]any{"path": path, "dir": dir, "name": id, "count": count, "wait_ms": 1500, "content": content})
	if err != nil {
		t.Fatal(err)
	}
	return ToolCall{ID: id, Name: tool, Args: args}
}

// batchWithin runs a batch with its own deadline.
func batchWithin(t *testing.T, turn *Turn, calls []ToolCall) []Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan []Outcome, 1)
	go func() { done <- turn.Batch(ctx, calls) }()
	select {
	case outs := <-done:
		return outs
	case <-time.After(70 * time.Second):
		t.Fatal("the batch did not finish in 70s")
		return nil
	}
}

// Seed 004's scheduling, with real plugin processes: the batch runs in
// order, calls whose resource keys do not conflict run together, and a
// write waits for every earlier call on its key.
func TestBatchSchedulesByResourceKeys(t *testing.T) {
	h := newHarness(t)
	allow := &byCall{answers: map[string]approval.Answer{}}
	turn := h.turn(t, []string{"fs.read", "fs.write"}, allow, h.source(t, "fixture", fixtureWriteMeta))
	for _, id := range []string{"w", "w1", "w2", "wa", "wb"} {
		allow.answers[id] = approval.AllowOnce
	}
	for _, tc := range []struct {
		name  string
		calls func(dir string) []ToolCall
		want  []string // each call's text
	}{
		{"readers of one path run together", func(dir string) []ToolCall {
			return []ToolCall{meet(t, "meet_read", "r1", "a.txt", dir, 3, ""), meet(t, "meet_read", "r2", "a.txt", dir, 3, ""), meet(t, "meet_read", "r3", "a.txt", dir, 3, "")}
		}, []string{"r1 met", "r2 met", "r3 met"}},
		{"a write to a path runs alone", func(dir string) []ToolCall {
			return []ToolCall{meet(t, "meet_read", "r1", "a.txt", dir, 2, ""), meet(t, "meet_write", "w", "a.txt", dir, 2, "x"), meet(t, "meet_read", "r2", "a.txt", dir, 2, "")}
		}, []string{"r1 alone", "w alone", "r2 alone"}},
		{"two writes of one path run one after the other", func(dir string) []ToolCall {
			return []ToolCall{meet(t, "meet_write", "w1", "a.txt", dir, 2, "1"), meet(t, "meet_write", "w2", "a.txt", dir, 2, "2")}
		}, []string{"w1 alone", "w2 alone"}},
		{"a write beside a read of another path", func(dir string) []ToolCall {
			return []ToolCall{meet(t, "meet_write", "w", "a.txt", dir, 2, "x"), meet(t, "meet_read", "r", "b.txt", dir, 2, "")}
		}, []string{"w met", "r met"}},
		{"two approved writes of different paths run together", func(dir string) []ToolCall {
			return []ToolCall{meet(t, "meet_write", "wa", "a.txt", dir, 2, "a"), meet(t, "meet_write", "wb", "b.txt", dir, 2, "b")}
		}, []string{"wa met", "wb met"}},
		{"a write under a directory the next call reads waits", func(dir string) []ToolCall {
			os.MkdirAll(filepath.Join(h.ws, "d"), 0o755)
			return []ToolCall{meet(t, "meet_write", "w", "d/f.txt", dir, 2, "x"), meet(t, "meet_read", "r", "d", dir, 2, "")}
		}, []string{"w alone", "r alone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			outs := batchWithin(t, turn, tc.calls(t.TempDir()))
			for i, o := range outs {
				if !o.OK() || o.Views.Model.String() != tc.want[i] {
					t.Errorf("call %s: %s %q, want %q", o.CallID, o.Status, o.Views.Model.String(), tc.want[i])
				}
			}
		})
	}
}

// Two writes of different paths overlap only when both were approved: the
// second is asked about before it starts, and a refused one never runs.
func TestBatchWritesRunTogetherOnlyWhenBothApproved(t *testing.T) {
	h := newHarness(t)
	p := &byCall{answers: map[string]approval.Answer{"wa": approval.AllowOnce, "wb": approval.Deny}}
	turn := h.turn(t, []string{"fs.read", "fs.write"}, p, h.source(t, "fixture", fixtureWriteMeta))
	dir := t.TempDir()
	outs := batchWithin(t, turn, []ToolCall{meet(t, "meet_write", "wa", "a.txt", dir, 2, "a"), meet(t, "meet_write", "wb", "b.txt", dir, 2, "b")})
	if !outs[0].OK() || outs[0].Views.Model.String() != "wa alone" {
		t.Fatalf("approved write: %s %q, want it to have run alone", outs[0].Status, outs[0].Views.Model.String())
	}
	if outs[1].Status != StatusDenied {
		t.Fatalf("refused write: %s %q", outs[1].Status, outs[1].Views.Model.String())
	}
	if _, err := os.Stat(filepath.Join(h.ws, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("the refused write happened: %v", err)
	}
	if strings.Join(p.asked, ",") != "wa,wb" {
		t.Fatalf("asked %v, want wa then wb", p.asked)
	}
}

// A read after a write of the same path sees the write, and a patch after
// a write is prechecked against the written file (its admission waits).
func TestBatchReadAfterWriteSeesTheWrite(t *testing.T) {
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.ws, "a.txt"), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &byCall{answers: map[string]approval.Answer{"w": approval.AllowOnce, "fw": approval.AllowOnce, "fp": approval.AllowOnce}}
	turn := h.turn(t, []string{"fs.read", "fs.write"}, p, h.source(t, "fixture", fixtureWriteMeta), h.source(t, "coding", codingMeta))
	outs := batchWithin(t, turn, []ToolCall{
		meet(t, "meet_write", "w", "a.txt", t.TempDir(), 2, "written by the batch\n"), // waits 1.5s for a peer before writing
		{ID: "r", Name: "read_file", Args: []byte(`{"path":"a.txt"}`)},
		{ID: "fw", Name: "write_file", Args: []byte(`{"path":"b.txt","content":"before marker\n"}`)},
		{ID: "fp", Name: "patch", Args: []byte(`{"path":"b.txt","old_string":"marker","new_string":"patched"}`)},
		{ID: "fr", Name: "read_file", Args: []byte(`{"path":"b.txt"}`)},
	})
	for _, o := range outs {
		if !o.OK() {
			t.Fatalf("%s: %s %q", o.CallID, o.Status, o.Views.Model.String())
		}
	}
	if !strings.Contains(outs[1].Views.Model.String(), "written by the batch") {
		t.Fatalf("the read did not see the earlier write: %q", outs[1].Views.Model.String())
	}
	if !strings.Contains(outs[4].Views.Model.String(), "before patched") {
		t.Fatalf("the last read did not see the patch: %q", outs[4].Views.Model.String())
	}
}
