package toolhost

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"demiurge.dev/host/evolve"
)

// An evolution run's review and promote of a 200-file core with the
// host's whole gate (every core loads, its catalog resolves against the
// built-in plugins), and a rollback. Budgets (issue 27): review and
// promote at most 300 ms each, rollback at most 100 ms. BENCHMARKS.md.
func BenchmarkEvolve200Files(b *testing.B) { benchEvolve(b, 0) }

// BenchmarkEvolve200FilesWithPolicyExamples is the same core with one
// skill replaced by policy_examples.yaml of 20 examples, which every gate
// checks through the call path.
func BenchmarkEvolve200FilesWithPolicyExamples(b *testing.B) { benchEvolve(b, 20) }

// benchExamples are policy examples the default core bears out, cycled.
var benchExamples = []string{
	"{tool: read_file, args: {path: README.md}, verdict: allow}",
	"{tool: write_file, args: {path: a.txt, content: x}, verdict: prompt}",
	"{tool: terminal, args: {command: git push origin main}, verdict: prompt}",
	"{tool: terminal, args: {command: rm -rf /}, verdict: deny}",
	"{tool: evolve_core, args: {action: promote, run_id: run_0123456789abcdef}, verdict: prompt}",
}

func benchEvolve(b *testing.B, examples int) {
	state := b.TempDir()
	r, live := stateRepo(b, state)
	work := checkout(b, r, live)
	skills := 198 // + agent.yaml and pipelines.yaml
	if examples > 0 {
		skills-- // + policy_examples.yaml
		y := "examples:\n"
		for i := range examples {
			y += fmt.Sprintf("  - {name: e%d, %s\n", i, benchExamples[i%len(benchExamples)][1:])
		}
		if err := os.WriteFile(filepath.Join(work, "agents/default/policy_examples.yaml"), []byte(y), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for i := range skills {
		p := filepath.Join(work, fmt.Sprintf("agents/default/skills/s%03d/SKILL.md", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, fmt.Appendf(nil, "---\nname: s%03d\ndescription: skill %d\n---\nDo thing %d.\n", i, i, i), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	gate := func(tree string) error {
		return Gate(context.Background(), tree, GateOptions{StateDir: state, BuiltinPluginDir: builtinDir, Commit: filepath.Base(tree)})
	}
	if _, _, err := r.Commit(work, "200 files", gate); err != nil {
		b.Fatal(err)
	}
	n := 0
	edit := func(id string) {
		n++
		p := filepath.Join(evolve.AgentsDir(state, id), "default/skills/s000/SKILL.md")
		if err := os.WriteFile(p, fmt.Appendf(nil, "---\nname: s000\ndescription: edit %d\n---\n", n), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("review", func(b *testing.B) {
		run, err := evolve.Start(r, "bench", "")
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			b.StopTimer()
			edit(run.ID)
			b.StartTimer()
			if _, err := evolve.Review(context.Background(), r, run.ID, "", gate, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("promote", func(b *testing.B) {
		for b.Loop() {
			b.StopTimer()
			run, err := evolve.Start(r, "bench", "")
			if err != nil {
				b.Fatal(err)
			}
			edit(run.ID)
			if _, err := evolve.Review(context.Background(), r, run.ID, "", gate, nil); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, err := evolve.Promote(context.Background(), r, run.ID, "", evolve.PromoteOptions{Gate: gate}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rollback", func(b *testing.B) {
		for b.Loop() {
			if _, _, _, err := r.Rollback(""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference-core-commit", func(b *testing.B) { // the operator's commit through the same gate
		for b.Loop() {
			b.StopTimer()
			n++
			p := filepath.Join(work, "agents/default/skills/s001/SKILL.md")
			if err := os.WriteFile(p, fmt.Appendf(nil, "---\nname: s001\ndescription: edit %d\n---\n", n), 0o644); err != nil {
				b.Fatal(err)
			}
			l, _ := r.Live()
			os.RemoveAll(work)
			if err := r.Checkout(l, work); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(p, fmt.Appendf(nil, "---\nname: s001\ndescription: edit %d\n---\n", n), 0o644); err != nil {
				b.Fatal(err)
			}
			b.StartTimer()
			if _, _, err := r.Commit(work, "edit", gate); err != nil {
				b.Fatal(err)
			}
		}
	})
}
