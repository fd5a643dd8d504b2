package corerepo

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// realGit runs the git CLI on the repository, as an outside writer would.
func realGit(t *testing.T, r *Repo, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", r.GitDir()}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, stderr.String())
	}
	return strings.TrimSpace(out.String())
}

func initRepo(t *testing.T) (*Repo, string) {
	t.Helper()
	r, commit, err := Init(t.TempDir(), Seed(), "first")
	if err != nil {
		t.Fatal(err)
	}
	return r, commit
}

func TestInitIsARealRepositoryWithLive(t *testing.T) {
	r, commit := initRepo(t)
	if live := realGit(t, r, "rev-parse", RefLive); live != commit {
		t.Fatalf("git sees live at %s, Init said %s", live, commit)
	}
	realGit(t, r, "fsck", "--strict")
	if got := realGit(t, r, "ls-tree", "-r", "--name-only", RefLive); got != "agents/default/agent.yaml\nagents/default/pipelines.yaml\nagents/evolver/agent.yaml" {
		t.Fatalf("tree:\n%s", got)
	}
	if _, _, err := Init(r.StateDir, Seed(), "again"); !errors.Is(err, ErrExists) {
		t.Fatalf("second Init: %v, want ErrExists", err)
	}
	ids, err := r.Cores(commit)
	if err != nil || len(ids) != 2 || ids[0] != "default" || ids[1] != "evolver" {
		t.Fatalf("Cores = %v, %v", ids, err)
	}
}

func TestOpenWithoutRepositorySaysWhatToDo(t *testing.T) {
	_, err := Open(t.TempDir())
	if !errors.Is(err, ErrNoRepository) || !strings.Contains(err.Error(), "demiurge core init") {
		t.Fatalf("Open: %v", err)
	}
}

func TestMaterializeIsReadOnlyAndKeyedByCommit(t *testing.T) {
	r, commit := initRepo(t)
	dir, err := r.Materialize(commit)
	if err != nil {
		t.Fatal(err)
	}
	if dir != TreeDir(r.StateDir, commit) {
		t.Fatalf("copy at %s, want keyed by commit", dir)
	}
	f := filepath.Join(CoreDir(r.StateDir, commit, "default"), "agent.yaml")
	fi, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o444 {
		t.Fatalf("%s mode %v, want 0444", f, fi.Mode().Perm())
	}
	for _, d := range []string{dir, filepath.Dir(f)} {
		if di, _ := os.Stat(d); di.Mode().Perm() != 0o555 {
			t.Fatalf("%s mode %v, want 0555", d, di.Mode().Perm())
		}
	}
	want, _ := os.ReadFile("seed/agents/default/agent.yaml")
	if got, _ := os.ReadFile(f); !bytes.Equal(got, want) {
		t.Fatalf("copy differs from the committed file")
	}
	again, err := r.Materialize(commit)
	if err != nil || again != dir {
		t.Fatalf("second Materialize: %s, %v", again, err)
	}
}

func TestCommitMovesLiveAndPrevious(t *testing.T) {
	r, first := initRepo(t)
	work := filepath.Join(t.TempDir(), "work")
	if err := r.Checkout(first, work); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "agents/reviewer/agent.yaml"), "name: reviewer\n")
	gated := ""
	old, second, err := r.Commit(work, "add reviewer", func(tree string) error { gated = tree; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if old != first || gated != TreeDir(r.StateDir, second) {
		t.Fatalf("old %s (want %s), gated %s", old, first, gated)
	}
	if live := realGit(t, r, "rev-parse", RefLive); live != second {
		t.Fatalf("live %s, want %s", live, second)
	}
	if prev := realGit(t, r, "rev-parse", RefPrevious); prev != first {
		t.Fatalf("previous %s, want %s", prev, first)
	}
	if parent := realGit(t, r, "rev-parse", RefLive+"~1"); parent != first {
		t.Fatalf("parent %s, want %s", parent, first)
	}
	realGit(t, r, "fsck", "--strict")
	if _, _, err := r.Commit(work, "again", nil); !errors.Is(err, ErrNothingToCommit) {
		t.Fatalf("unchanged tree: %v", err)
	}
	changed, err := r.ChangedPaths(first, second)
	if err != nil || len(changed) != 1 || changed[0] != "agents/reviewer/agent.yaml" {
		t.Fatalf("ChangedPaths = %v, %v", changed, err)
	}
	var diff bytes.Buffer
	if err := r.Diff(first, second, &diff); err != nil || !strings.Contains(diff.String(), "+name: reviewer") {
		t.Fatalf("Diff: %v\n%s", err, diff.String())
	}
	log, err := r.Log("live", 10)
	if err != nil || len(log) != 2 || log[0].Subject != "add reviewer" || log[1].Subject != "first" {
		t.Fatalf("Log = %+v, %v", log, err)
	}
	if h, err := r.Resolve("live~1"); err != nil || h != first {
		t.Fatalf("Resolve(live~1) = %s, %v", h, err)
	}
}

func TestFailingGateMovesNothing(t *testing.T) {
	r, first := initRepo(t)
	work := filepath.Join(t.TempDir(), "work")
	if err := r.Checkout(first, work); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "agents/default/agent.yaml"), "name: changed\n")
	var gated string
	_, _, err := r.Commit(work, "bad", func(tree string) error { gated = tree; return errors.New("gate says no") })
	if err == nil || err.Error() != "gate says no" {
		t.Fatalf("Commit: %v", err)
	}
	if _, err := os.Stat(gated); !os.IsNotExist(err) {
		t.Fatalf("the refused commit's copy %s is still there: %v", gated, err)
	}
	if live, _ := r.Live(); live != first {
		t.Fatalf("live moved to %s", live)
	}
	if _, ok, _ := r.Ref(RefPrevious); ok {
		t.Fatal("previous was written")
	}
}

// A ref moved by someone else (here the real git CLI) between the read and
// the move makes the commit move nothing.
func TestCommitLosesToARefMovedUnderIt(t *testing.T) {
	r, first := initRepo(t)
	work := filepath.Join(t.TempDir(), "work")
	if err := r.Checkout(first, work); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "agents/default/extra.txt"), "x\n")
	tree := realGit(t, r, "rev-parse", RefLive+"^{tree}")
	other := realGit(t, r, "-c", "user.name=o", "-c", "user.email=o@o", "commit-tree", tree, "-p", first, "-m", "someone else")
	_, _, err := r.Commit(work, "mine", func(string) error {
		realGit(t, r, "update-ref", RefLive, other, first)
		return nil
	})
	var moved *MovedError
	if !errors.As(err, &moved) || moved.Ref != RefLive || moved.Have != other {
		t.Fatalf("Commit: %v, want MovedError for live", err)
	}
	if live, _ := r.Live(); live != other {
		t.Fatalf("live %s, want the other writer's %s", live, other)
	}
	if _, ok, _ := r.Ref(RefPrevious); ok {
		t.Fatal("previous moved although live did not")
	}
}

func TestMoveRespectsGitsLockFile(t *testing.T) {
	r, first := initRepo(t)
	lock := filepath.Join(r.GitDir(), "refs/demiurge/live.lock")
	writeFile(t, lock, "")
	err := r.Move(Update{Ref: RefLive, Old: first, New: first})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("Move under a held lock: %v", err)
	}
	if _, err := os.Stat(lock); err != nil {
		t.Fatal("the other writer's lock was removed")
	}
	if err := r.Move(Update{Ref: "refs/heads/main", New: first}); err == nil {
		t.Fatal("Move outside refs/demiurge/ accepted")
	}
}

func TestCommitRefusesSymlinksAndBadLayout(t *testing.T) {
	r, first := initRepo(t)
	work := filepath.Join(t.TempDir(), "work")
	if err := r.Checkout(first, work); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/passwd", filepath.Join(work, "agents/default/link")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Commit(work, "m", nil); err == nil || !strings.Contains(err.Error(), "agents/default/link: is a symlink") {
		t.Fatalf("symlink: %v", err)
	}
	os.Remove(filepath.Join(work, "agents/default/link"))
	writeFile(t, filepath.Join(work, "agents/Bad Id/agent.yaml"), "name: x\n")
	if _, _, err := r.Commit(work, "m", nil); err == nil || !strings.Contains(err.Error(), `core id "Bad Id"`) {
		t.Fatalf("bad id: %v", err)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
