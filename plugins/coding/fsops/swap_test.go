package fsops

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestASwappedParentNeverLeadsOutside: a directory inside the workspace
// that another process keeps swapping for a symlink to a directory outside
// (a background command can) never lets a read return, a write create or
// an edit change a file outside: os.Root refuses the escape on read, the
// pinned parent's real path refuses it on write and patch. Some calls
// succeed inside, some are refused; none lands outside.
func TestASwappedParentNeverLeadsOutside(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	fx.write(t, "d/s.txt", "inside\n")
	secret := fx.outside + "/s.txt"
	if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fx.outside, fx.in("d_ln")); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			os.Rename(fx.in("d"), fx.in("d_real"))
			os.Rename(fx.in("d_ln"), fx.in("d"))
			os.Rename(fx.in("d"), fx.in("d_ln"))
			os.Rename(fx.in("d_real"), fx.in("d"))
		}
	}()
	deadline := time.Now().Add(2 * time.Second)
	var inside int
	for i := 0; time.Now().Before(deadline); i++ {
		if r, err := ReadFile(ctx, fx.ws, ReadParams{Path: "d/s.txt"}); err == nil {
			if strings.Contains(r.Content, "secret") {
				t.Fatalf("a read through the swapped parent returned the outside file")
			}
			inside++
		}
		WriteFile(ctx, fx.ws, WriteParams{Path: "d/new.txt", Content: "x"})
		Patch(ctx, fx.ws, PatchParams{Path: "d/s.txt", OldString: "secret", NewString: "changed"})
		WriteFile(ctx, fx.ws, WriteParams{Path: "d/s.txt", Content: "overwritten\n"})
	}
	stop.Store(true)
	wg.Wait()
	b, _ := os.ReadFile(secret)
	entries, _ := os.ReadDir(fx.outside)
	if string(b) != "secret\n" || len(entries) != 1 {
		t.Fatalf("outside changed: s.txt %q, %d entries", b, len(entries))
	}
	if inside == 0 {
		t.Fatal("no read succeeded inside: the race never let one through")
	}
}
