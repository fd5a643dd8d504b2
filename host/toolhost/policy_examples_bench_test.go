package toolhost

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"demiurge.dev/host/core"
)

// BenchmarkPolicyExamples20 is what checking 20 policy examples adds to a
// gate: the call path's effect-free steps and the resolver per example.
// The reference, in the same run, is the gate's catalog resolution of the
// same host (a fresh session, plugins' describe cached).
func BenchmarkPolicyExamples20(b *testing.B) {
	dir := b.TempDir()
	y := "examples:\n"
	for i := range 20 {
		y += fmt.Sprintf("  - {name: e%d, %s\n", i, benchExamples[i%len(benchExamples)][1:])
	}
	if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte("toolsets: [coding, demiurge_control]\ncapabilities: [fs.read, fs.write, terminal.exec, tool.call:evolve_core]\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, core.PolicyExamplesFile), []byte(y), 0o644); err != nil {
		b.Fatal(err)
	}
	c, err := core.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	h, err := openCore(c, Options{StateDir: b.TempDir(), BuiltinPluginDir: builtinDir, Workspace: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	cat, err := h.Catalog(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("examples", func(b *testing.B) {
		for b.Loop() {
			if err := gatePolicyExamples(ctx, h, cat); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("reference-catalog", func(b *testing.B) {
		for b.Loop() {
			if _, err := h.NewSession().Catalog(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
