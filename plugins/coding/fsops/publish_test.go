package fsops

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"
)

// A change made to the target between the staged file's fsync and its
// publication is never lost: the operation fails with ErrChanged, nothing
// it staged remains, and the target holds the concurrent change.
func TestPublishNeverLosesAConcurrentChange(t *testing.T) {
	const original = "alpha\nbeta\ngamma\n"
	operations := []struct {
		name   string
		exists bool // the target exists before the operation
		run    func(ws *Workspace) error
	}{
		{"patch", true, func(ws *Workspace) error {
			_, err := Patch(context.Background(), ws, PatchParams{Path: "f.txt", OldString: "beta", NewString: "BETA"})
			return err
		}},
		{"write_file replacing", true, func(ws *Workspace) error {
			_, err := WriteFile(context.Background(), ws, WriteParams{Path: "f.txt", Content: "written\n"})
			return err
		}},
		{"write_file creating", false, func(ws *Workspace) error {
			_, err := WriteFile(context.Background(), ws, WriteParams{Path: "f.txt", Content: "written\n"})
			return err
		}},
	}
	changes := []struct {
		name    string
		exists  bool // applies when the target exists
		change  func(t *testing.T, fx *fixture)
		want    string // the target's content afterwards
		removed bool
	}{
		{"replaced by rename", true, func(t *testing.T, fx *fixture) {
			fx.write(t, "other.txt", "the concurrent replacement\n")
			if err := os.Rename(fx.in("other.txt"), fx.in("f.txt")); err != nil {
				t.Fatal(err)
			}
		}, "the concurrent replacement\n", false},
		{"appended in place", true, func(t *testing.T, fx *fixture) {
			f, err := os.OpenFile(fx.in("f.txt"), os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString("appended\n")
			f.Close()
		}, original + "appended\n", false},
		{"rewritten in place, same size", true, func(t *testing.T, fx *fixture) {
			time.Sleep(2 * time.Millisecond) // a later mtime than the one read (ns resolution; not a sync)
			if err := os.WriteFile(fx.in("f.txt"), []byte("ALPHA\nbeta\ngamma\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "ALPHA\nbeta\ngamma\n", false},
		{"removed", true, func(t *testing.T, fx *fixture) {
			if err := os.Remove(fx.in("f.txt")); err != nil {
				t.Fatal(err)
			}
		}, "", true},
		{"created", false, func(t *testing.T, fx *fixture) {
			fx.write(t, "f.txt", "created meanwhile\n")
		}, "created meanwhile\n", false},
	}
	for _, op := range operations {
		for _, ch := range changes {
			if ch.exists != op.exists {
				continue
			}
			t.Run(op.name+"/"+ch.name, func(t *testing.T) {
				fx := newFixture(t)
				if op.exists {
					fx.write(t, "f.txt", original)
				}
				fired := false
				beforePublish = func() { fired = true; ch.change(t, fx) }
				defer func() { beforePublish = nil }()
				err := op.run(fx.ws)
				if !fired {
					t.Fatal("the operation never reached its publish step")
				}
				wantKind(t, err, ErrChanged)
				if !strings.Contains(err.Error(), "nothing was written") {
					t.Fatalf("refusal %q does not say that nothing was written", err)
				}
				b, rerr := os.ReadFile(fx.in("f.txt"))
				switch {
				case ch.removed && !errors.Is(rerr, os.ErrNotExist):
					t.Fatalf("the removed file came back: %q, %v", b, rerr)
				case !ch.removed && string(b) != ch.want:
					t.Fatalf("f.txt = %q, want the concurrent change %q", b, ch.want)
				}
				assertNoStaging(t, fx.root)
			})
		}
	}
}

// A replacement renamed over the target at a random moment while a patch
// of a large file runs is never lost, whichever step it lands in: before
// the read (no match), during it or during the fsync (ErrChanged), or
// after the publication (it simply wins).
func TestPatchRaceWithReplacementNeverLosesIt(t *testing.T) {
	fx := newFixture(t)
	body := strings.Repeat("filler line of a large file\n", 16<<10) // 448 KiB
	deadline := time.Now().Add(3 * time.Second)
	outcomes := map[string]int{}
	for i := 0; time.Now().Before(deadline); i++ {
		fx.write(t, "big.txt", "orig marker\n"+body)
		fx.write(t, "next.txt", "replacement marker\n"+body)
		done := make(chan error, 1)
		delay := time.Duration(rand.IntN(3000)) * time.Microsecond
		go func() {
			time.Sleep(delay) // a random point in the patch, not a sync
			done <- os.Rename(fx.in("next.txt"), fx.in("big.txt"))
		}()
		_, err := Patch(context.Background(), fx.ws, PatchParams{Path: "big.txt", OldString: "orig marker", NewString: "patched marker"})
		select {
		case rerr := <-done:
			if rerr != nil {
				t.Fatal(rerr)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("the replacing goroutine did not finish in 10s")
		}
		switch {
		case err == nil:
			outcomes["patched, then replaced"]++
		case errors.Is(err, ErrChanged):
			outcomes["changed during the patch"]++
		case errors.Is(err, ErrNoMatch):
			outcomes["replaced before the read"]++
		default:
			t.Fatalf("iteration %d: %v", i, err)
		}
		b, err := os.ReadFile(fx.in("big.txt"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(b), "replacement marker\n") {
			t.Fatalf("iteration %d (%v): the replacement was lost; the file starts %q", i, outcomes, b[:min(len(b), 40)])
		}
	}
	assertNoStaging(t, fx.root)
	t.Logf("outcomes: %v", outcomes)
}
