package core

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzPipelines feeds arbitrary pipelines.yaml bytes to the parser: no
// panic, every error a *LoadError naming the file, and what loads keeps
// the invariants the runner relies on (base_input alone in input,
// base_output alone in output, every id known, no id twice in a stage).
func FuzzPipelines(f *testing.F) {
	for _, s := range []string{
		"bootstrap: [project_instructions, repo_map]\ninput: [base_input, [ticket, notify]]\noutput: [base_output, notify]\n",
		"input: [[ticket, [notify]]]\n", "output: [base_input]\n", "bootstrap:\n", "input: &a [*a]\n", "inputs: []\n",
		"input: [ticket, ticket]\n", "---\n---\n", "input: [[base_input, ticket]]\n",
	} {
		f.Add([]byte(s))
	}
	slots := map[string]*Slot{"ticket": {ID: "ticket"}, "notify": {ID: "notify"}, "repo_map": {ID: "repo_map"}}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := parsePipelines(data, "pipelines.yaml", slots)
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) || le.File != "pipelines.yaml" {
				t.Fatalf("error %T %v does not name the file", err, err)
			}
			return
		}
		for stage, groups := range map[string][]Group{StageBootstrap: p.Bootstrap, StageInput: p.Input, StageOutput: p.Output} {
			seen := map[string]bool{}
			for _, g := range groups {
				if len(g) == 0 {
					t.Fatalf("%s: empty group", stage)
				}
				for _, id := range g {
					if seen[id] {
						t.Fatalf("%s: %s twice", stage, id)
					}
					seen[id] = true
					if slots[id] == nil && !reservedSlot(id) {
						t.Fatalf("%s: unknown id %q loaded", stage, id)
					}
					if (id == BaseInput || id == BaseOutput) && len(g) > 1 {
						t.Fatalf("%s: %s in a parallel group", stage, id)
					}
				}
			}
		}
		if !slices.Contains(p.Slots(p.Input), BaseInput) || !slices.Contains(p.Slots(p.Output), BaseOutput) {
			t.Fatal("a host slot is missing")
		}
	})
}

// FuzzSlot feeds arbitrary slot.yaml bytes to the slot loader.
func FuzzSlot(f *testing.F) {
	for _, s := range []string{
		"entrypoint: module:run\nfailure_policy: skip\nhistory_policy: keep\ndefault_placement: system\ntimeout_seconds: 3\n",
		"risk: low\n", "timeout_seconds: 99999999999999999999\n", "capabilities: [a, a]\n", "entrypoint: other:run\n",
	} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "module.py"), []byte("def run(ctx, e):\n    pass\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, SlotFile), data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := loadSlot(dir, "x")
		if err != nil {
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %T %v is not a *LoadError", err, err)
			}
			return
		}
		if s.TimeoutSeconds < 1 || s.TimeoutSeconds > MaxSlotTimeout ||
			!slices.Contains([]string{FailFail, FailSkip}, s.FailurePolicy) ||
			!slices.Contains([]string{HistoryTurn, HistoryKeep}, s.HistoryPolicy) ||
			!slices.Contains([]string{PlaceSystem, PlaceMessage}, s.DefaultPlacement) {
			t.Fatalf("loaded out of range: %+v", s)
		}
	})
}
