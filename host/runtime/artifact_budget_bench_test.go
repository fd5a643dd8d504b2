package runtime

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkPruneArtifactsUnderBudget is what every artifact registration
// pays when nothing has to go: one scan of an index of 10,000 entries.
func BenchmarkPruneArtifactsUnderBudget(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "state.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for i := range 10000 {
		if err := s.IndexArtifact(ctx, ArtifactRecord{Root: "r", Path: fmt.Sprintf("terminal/sp_%d/stdout.log", i), Size: 1000, Principal: "p", Session: "s"}); err != nil {
			b.Fatal(err)
		}
	}
	dir := b.TempDir()
	for b.Loop() {
		if _, err := s.PruneArtifacts(ctx, dir, 1<<40, nil); err != nil {
			b.Fatal(err)
		}
	}
}
