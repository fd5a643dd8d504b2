package corerepo

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// commitFile commits live's tree plus one file, through the gates' path.
func commitFile(t *testing.T, r *Repo, rel, body, msg string) string {
	t.Helper()
	live, err := r.Live()
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(t.TempDir(), "work")
	if err := r.Checkout(live, work); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, rel), body)
	_, c, err := r.Commit(work, msg, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestRollbackIsANewCommitOfPreviousTree(t *testing.T) {
	r, first := initRepo(t)
	if _, _, _, err := r.Rollback(""); !errors.Is(err, ErrNothingPrevious) {
		t.Fatalf("rollback with nothing previous: %v", err)
	}
	second := commitFile(t, r, "agents/default/extra.txt", "x\n", "add extra")
	old, rb, target, err := r.Rollback("")
	if err != nil {
		t.Fatal(err)
	}
	if old != second || target != first {
		t.Fatalf("old %s target %s", old, target)
	}
	if live := realGit(t, r, "rev-parse", RefLive); live != rb {
		t.Fatalf("live %s, want the rollback commit %s", live, rb)
	}
	if prev := realGit(t, r, "rev-parse", RefPrevious); prev != second {
		t.Fatalf("previous %s, want %s", prev, second)
	}
	// History is kept: the rolled-back commit is live's parent.
	if parent := realGit(t, r, "rev-parse", RefLive+"~1"); parent != second {
		t.Fatalf("parent %s, want %s", parent, second)
	}
	if a, b := realGit(t, r, "rev-parse", RefLive+"^{tree}"), realGit(t, r, "rev-parse", first+"^{tree}"); a != b {
		t.Fatalf("tree %s, want first's %s", a, b)
	}
	realGit(t, r, "fsck", "--strict")
	// Rolling back again returns to the second tree (previous is second).
	if _, _, target, err := r.Rollback(""); err != nil || target != second {
		t.Fatalf("second rollback: %s, %v", target, err)
	}
	// A named revision of live's history.
	if _, _, target, err := r.Rollback(first); err != nil || target != first {
		t.Fatalf("rollback to %s: %s, %v", first, target, err)
	}
	if _, _, _, err := r.Rollback(first); err == nil || !strings.Contains(err.Error(), "live's tree already") {
		t.Fatalf("rollback to the tree live has: %v", err)
	}
}

// A commit that was never live (an unpromoted run's, or one written by
// another git) is not a rollback target: rollback must not promote.
func TestRollbackRefusesACommitThatWasNeverLive(t *testing.T) {
	r, first := initRepo(t)
	commitFile(t, r, "agents/default/extra.txt", "x\n", "add extra")
	tree := realGit(t, r, "rev-parse", RefLive+"^{tree}")
	stray := realGit(t, r, "-c", "user.name=o", "-c", "user.email=o@o", "commit-tree", tree, "-p", first, "-m", "never live")
	live, _ := r.Live()
	if _, _, _, err := r.Rollback(stray); err == nil || !strings.Contains(err.Error(), "was never live") {
		t.Fatalf("rollback to a stray commit: %v", err)
	}
	if now, _ := r.Live(); now != live {
		t.Fatal("live moved")
	}
	if _, _, _, err := r.Rollback("no-such-rev"); err == nil {
		t.Fatal("an unknown revision was accepted")
	}
}

// Two rollbacks at once: one moves the refs, the other loses cleanly.
func TestRollbacksRacingOneLoses(t *testing.T) {
	r, _ := initRepo(t)
	commitFile(t, r, "agents/default/extra.txt", "x\n", "add extra")
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() { defer wg.Done(); _, _, _, errs[i] = r.Rollback("") }()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		var moved *MovedError
		switch {
		case err == nil:
			won++
		case errors.As(err, &moved), errors.Is(err, ErrLocked), strings.Contains(err.Error(), "live's tree already"):
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	if won < 1 {
		t.Fatal("no rollback won")
	}
	realGit(t, r, "fsck", "--strict")
	// Every winner's commit sits on the live it read: one commit per win.
	if n := realGit(t, r, "rev-list", "--count", RefLive); n != fmt.Sprint(2+won) {
		t.Fatalf("live's history has %s commits after %d winning rollbacks", n, won)
	}
}
