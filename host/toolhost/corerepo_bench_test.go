package toolhost

import (
	"testing"

	"demiurge.dev/host/core"
	"demiurge.dev/host/corerepo"
)

// Loading the core the host runs from a commit whose read-only copy is
// cached: open the repository, resolve live, list its cores, find the
// copy, load agent.yaml, pipelines.yaml and slots. Against it, loading the
// same files as a plain directory (--core DIR). BENCHMARKS.md, issue 25.
func BenchmarkLoadCoreFromCachedCommit(b *testing.B) {
	state := b.TempDir()
	r, err := corerepo.OpenOrInit(state)
	if err != nil {
		b.Fatal(err)
	}
	live, _ := r.Live()
	if _, err := LoadFromRepo(r, "live", core.DefaultID); err != nil { // makes the copy
		b.Fatal(err)
	}
	b.Run("cached-copy", func(b *testing.B) { // what Open does
		for b.Loop() {
			_, release, err := loadCore("", "", state)
			if err != nil {
				b.Fatal(err)
			}
			release()
		}
	})
	b.Run("through-git", func(b *testing.B) { // a copy not yet found: go-git resolves
		for b.Loop() {
			r, err := corerepo.Open(state)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := LoadFromRepo(r, "live", core.DefaultID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plain-directory", func(b *testing.B) {
		dir := corerepo.CoreDir(state, live, core.DefaultID)
		for b.Loop() {
			if _, err := core.Load(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}
