package dispatch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/approval"
)

// TestBatchGuardRecheck: a batch is assessed before any of it runs, so a
// command the guard allowed is reviewed again when it starts. Attacks:
// an approved call plants a symlink to a file outside the workspace (or
// a git config key) that a later read-only command of the same batch then
// reads (or runs) unasked.
func TestBatchGuardRecheck(t *testing.T) {
	for _, tc := range []struct {
		name, setup, read string
	}{
		{"symlink out", "ln -s OUTSIDE/secret.txt planted", "cat planted"},
		{"symlink through a directory", "ln -s OUTSIDE d", "cat d/secret.txt"},
		{"git diff.external", "git init -q . && git config diff.external OUTSIDE/mark.sh && echo x > f && git add f && echo y >> f", "git diff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			p := &answer{a: approval.AllowOnce}
			turn, _ := h.terminalTurn(t, p)
			outside := t.TempDir()
			if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("outside-secret\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			marker := filepath.Join(outside, "marker")
			if err := os.WriteFile(filepath.Join(outside, "mark.sh"), []byte("#!/bin/sh\necho ran > "+marker+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			setup := strings.ReplaceAll(tc.setup, "OUTSIDE", outside)
			outs := turn.Batch(context.Background(), []ToolCall{
				{ID: "plant", Name: "terminal", Args: jsonCommand(setup)},
				{ID: "read", Name: "terminal", Args: jsonCommand(tc.read)},
			})
			if !outs[0].OK() {
				t.Fatalf("setup: %s %s", outs[0].Status, outs[0].Views.Model.String())
			}
			if strings.Contains(outs[1].Views.Model.String(), "outside-secret") {
				t.Fatalf("the read ran on what the setup planted: %s", outs[1].Views.Model.String())
			}
			if _, err := os.Stat(marker); err == nil {
				t.Fatalf("the read ran the planted program: %s %s", outs[1].Status, outs[1].Views.Model.String())
			}
			if outs[1].OK() {
				t.Fatalf("the read succeeded: %s", outs[1].Views.Model.String())
			}
		})
	}
}

func jsonCommand(cmd string) []byte {
	b, _ := json.Marshal(map[string]any{"command": cmd})
	return b
}

// TestBatchGuardRecheckKeepsHonestReads: a read that still reviews the
// same after the calls before it runs as usual.
func TestBatchGuardRecheckKeepsHonestReads(t *testing.T) {
	h := newHarness(t)
	turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	outs := turn.Batch(context.Background(), []ToolCall{
		{ID: "write", Name: "terminal", Args: jsonCommand("echo fresh-content > made.txt")},
		{ID: "read", Name: "terminal", Args: jsonCommand("cat made.txt")},
	})
	if !outs[0].OK() || !outs[1].OK() || !strings.Contains(outs[1].Views.Model.String(), "fresh-content") {
		t.Fatalf("write: %s %s; read: %s %s", outs[0].Status, outs[0].Views.Model.String(), outs[1].Status, outs[1].Views.Model.String())
	}
}
