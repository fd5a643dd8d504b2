package runtime

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestPruneArtifactsFillsAndRetains fills runtime/artifacts past its
// budget: the oldest artifacts of ended calls and tasks go first, file and
// index entry; a running task's artifact and the one being registered stay,
// however old; files nobody indexed (a call still running) are untouched.
func TestPruneArtifactsFillsAndRetains(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "artifacts")
	for _, tk := range []Task{{ID: "task_live", State: TaskRunning}, {ID: "task_done", State: TaskSucceeded}} {
		if err := s.createTask(ctx, tk); err != nil {
			t.Fatal(err)
		}
	}
	const kib = 1024
	base := time.Now().Add(-time.Hour)
	// Oldest first. Budget 3 KiB, 7 KiB indexed: 4 KiB must go, and only
	// from what may go.
	arts := []struct {
		rel, call, task string
	}{
		{"terminal/sp_live/stdout.log", "", "task_live"},    // oldest, but its task runs
		{"terminal/sp_1/stdout.log", "call_1", ""},          // goes
		{"terminal/sp_2/stdout.log", "call_2", "task_done"}, // goes
		{"terminal/sp_now/stdout.log", "call_now", ""},      // being registered: stays
		{"terminal/sp_3/stdout.log", "call_3", ""},          // goes
		{"terminal/sp_4/stdout.log", "call_4", ""},          // goes
		{"terminal/sp_5/stdout.log", "call_5", ""},          // newest: stays
	}
	for i, a := range arts {
		p := filepath.Join(dir, "root1", a.rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, kib), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := s.IndexArtifact(ctx, ArtifactRecord{Root: "root1", Path: a.rel, Size: kib, CallID: a.call, TaskID: a.task,
			Principal: "p", Session: "s", Created: base.Add(time.Duration(i) * time.Minute)}); err != nil {
			t.Fatal(err)
		}
	}
	running := filepath.Join(dir, "root1", "terminal", "sp_running", "stdout.log") // not indexed yet
	if err := os.MkdirAll(filepath.Dir(running), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(running, make([]byte, 10*kib), 0o600); err != nil {
		t.Fatal(err)
	}

	rep, err := s.PruneArtifacts(ctx, dir, 3*kib, func(r ArtifactRecord) bool { return r.CallID == "call_now" })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"root1/terminal/sp_1/stdout.log", "root1/terminal/sp_2/stdout.log", "root1/terminal/sp_3/stdout.log", "root1/terminal/sp_4/stdout.log"}
	if !slices.Equal(rep.Removed, want) || rep.RemovedBytes != 4*kib || rep.KeptBytes != 3*kib {
		t.Fatalf("report %+v, want removed %v", rep, want)
	}
	for _, a := range arts {
		_, statErr := os.Stat(filepath.Join(dir, "root1", a.rel))
		gone := slices.Contains(want, "root1/"+a.rel)
		if gone != (statErr != nil) {
			t.Errorf("%s: gone=%v but stat says %v", a.rel, gone, statErr)
		}
		if gone {
			if _, err := os.Stat(filepath.Dir(filepath.Join(dir, "root1", a.rel))); err == nil {
				t.Errorf("%s: its empty directory stayed", a.rel)
			}
		}
	}
	if _, err := os.Stat(running); err != nil {
		t.Fatalf("a running call's artifact was touched: %v", err)
	}
	left, _ := s.Artifacts("p", "s")
	var refs []string
	for _, r := range left {
		refs = append(refs, r.Ref)
	}
	if strings.Join(refs, " ") != "root1/terminal/sp_5/stdout.log root1/terminal/sp_live/stdout.log root1/terminal/sp_now/stdout.log" {
		t.Fatalf("index left %v", refs)
	}

	// Under the budget nothing goes; a budget only live artifacts fill
	// stays over it rather than remove one.
	if rep, err := s.PruneArtifacts(ctx, dir, 3*kib, nil); err != nil || len(rep.Removed) != 0 {
		t.Fatalf("under budget: %+v, %v", rep, err)
	}
	rep, err = s.PruneArtifacts(ctx, dir, 1, func(r ArtifactRecord) bool { return r.CallID == "call_now" })
	if err != nil || !slices.Equal(rep.Removed, []string{"root1/terminal/sp_5/stdout.log"}) || rep.KeptBytes != 2*kib {
		t.Fatalf("only live left: %+v, %v", rep, err)
	}
}

// TestPruneArtifactsStaysInside: an index entry can never make the
// prune remove anything outside runtime/artifacts, even through a
// symlink planted inside.
func TestPruneArtifactsStaysInside(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "artifacts")
	outside := t.TempDir()
	victim := filepath.Join(outside, "victim")
	if err := os.WriteFile(victim, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "root1"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "root1", "link")); err != nil {
		t.Fatal(err)
	}
	if err := s.IndexArtifact(ctx, ArtifactRecord{Root: "root1", Path: "link/victim", Size: 100, Principal: "p", Session: "s"}); err != nil {
		t.Fatal(err)
	}
	// A normal entry after the bad one still goes.
	if err := os.WriteFile(filepath.Join(dir, "root1", "plain"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.IndexArtifact(ctx, ArtifactRecord{Root: "root1", Path: "plain", Size: 100, Principal: "p", Session: "s", Created: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	rep, err := s.PruneArtifacts(ctx, dir, 1, nil)
	if err == nil || !slices.Equal(rep.Removed, []string{"root1/plain"}) {
		t.Fatalf("prune: %+v, %v; want the bad entry refused and the plain one removed", rep, err)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("the prune removed a file outside the artifacts directory: %v", err)
	}
}

// TestArtifactTotalFollowsTheIndex: the running total the budget check
// reads equals the index's sum through updates and prunes, and a store
// without one (made before it existed) computes it.
func TestArtifactTotalFollowsTheIndex(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	sum := func() int64 {
		recs, _ := s.Artifacts("p", "s")
		var n int64
		for _, r := range recs {
			n += r.Size
		}
		return n
	}
	check := func(when string) {
		t.Helper()
		got, err := s.artifactBytes(ctx)
		if err != nil || got != sum() {
			t.Fatalf("%s: total %d, %v; index sums to %d", when, got, err, sum())
		}
	}
	check("empty")
	for i, size := range []int64{10, 20, 30} {
		if err := s.IndexArtifact(ctx, ArtifactRecord{Root: "r", Path: "f" + string(rune('a'+i)), Size: size, Principal: "p", Session: "s", Created: time.Now().Add(time.Duration(i) * time.Second)}); err != nil {
			t.Fatal(err)
		}
	}
	check("three indexed")
	if err := s.IndexArtifact(ctx, ArtifactRecord{Root: "r", Path: "fa", Size: 15, Principal: "p", Session: "s"}); err != nil {
		t.Fatal(err)
	}
	check("one grew")
	if _, err := s.PruneArtifacts(ctx, t.TempDir(), 40, nil); err != nil {
		t.Fatal(err)
	}
	check("pruned")
	if err := s.update(ctx, func(tx *bolt.Tx) error { return tx.Bucket([]byte(BucketArtifactTotals)).Delete(totalKey) }); err != nil {
		t.Fatal(err)
	}
	check("total lost")
}
