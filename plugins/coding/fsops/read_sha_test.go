package fsops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
)

// TestAReadGivesTheHashThatKeepsALaterChange: write_file's expected_sha256
// is "the sha256 of the content you read", so a read that reached the end
// of the file gives it; a write bound to it keeps a change made after the
// read (an editor's save) and writes nothing, and goes through when the
// file is as read. A read that stopped before the end gives none.
func TestAReadGivesTheHashThatKeepsALaterChange(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	text := strings.Repeat("line\n", 100)
	fx.write(t, "a.txt", text)
	sum := sha256.Sum256([]byte(text))
	want := hex.EncodeToString(sum[:])
	for _, p := range []ReadParams{
		{Path: "a.txt"},                       // the whole file
		{Path: "a.txt", Offset: 10, Limit: 5}, // a window; the count reached the end
		{Path: "a.txt", Offset: 500},          // past the end
	} {
		r, err := ReadFile(ctx, fx.ws, p)
		if err != nil || r.SHA256 != want {
			t.Fatalf("%+v: sha256 %q, %v; want %s", p, r.SHA256, err, want)
		}
	}
	for _, p := range []ReadParams{{Path: "a.txt", Offset: -3}} {
		if r, _ := ReadFile(ctx, fx.ws, p); r.SHA256 != "" {
			t.Fatalf("%+v (not scanned from the start): sha256 %q", p, r.SHA256)
		}
	}
	lim := defaultReadLimits
	lim.byteBudget = 64
	if r, _ := readFile(ctx, fx.ws, ReadParams{Path: "a.txt"}, lim); r.SHA256 != "" || !r.Truncated {
		t.Fatalf("stopped by the byte budget: sha256 %q", r.SHA256)
	}
	lim = defaultReadLimits
	lim.hashMax = int64(len(text)) - 1
	if r, _ := readFile(ctx, fx.ws, ReadParams{Path: "a.txt"}, lim); r.SHA256 != "" || r.Truncated {
		t.Fatalf("a file over the hashing size: sha256 %q", r.SHA256)
	}
	lim = defaultReadLimits
	lim.countBudget = 8
	if r, _ := readFile(ctx, fx.ws, ReadParams{Path: "a.txt", Limit: 2}, lim); r.SHA256 != "" {
		t.Fatalf("the count stopped before the end: sha256 %q", r.SHA256)
	}

	// The editor saves after the read: the bound write keeps the save.
	r, _ := ReadFile(ctx, fx.ws, ReadParams{Path: "a.txt"})
	os.WriteFile(fx.in("a.txt"), []byte(text+"the user's line\n"), 0o644)
	if _, err := WriteFile(ctx, fx.ws, WriteParams{Path: "a.txt", Content: "model\n", ExpectedSHA256: r.SHA256}); !errors.Is(err, ErrChanged) {
		t.Fatalf("write over a save made after the read: %v", err)
	}
	if b, _ := os.ReadFile(fx.in("a.txt")); string(b) != text+"the user's line\n" {
		t.Fatalf("the save was lost: %q", b)
	}
	r, _ = ReadFile(ctx, fx.ws, ReadParams{Path: "a.txt"})
	if _, err := WriteFile(ctx, fx.ws, WriteParams{Path: "a.txt", Content: "model\n", ExpectedSHA256: r.SHA256}); err != nil {
		t.Fatal(err)
	}
}

// TestAPatchGivesTheHashOfWhatItWrote: patch's result carries the edited
// file's sha256 as write_file's does, so a later write can be bound to the
// file the model's own edit left.
func TestAPatchGivesTheHashOfWhatItWrote(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	fx.write(t, "a.txt", "alpha\nbeta\n")
	defer func(c int) { patchChunk = c }(patchChunk)
	patchChunk = 3 // the hash follows the stream, chunk by chunk
	res, err := Patch(ctx, fx.ws, PatchParams{Path: "a.txt", OldString: "beta", NewString: "gamma"})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("alpha\ngamma\n"))
	if res.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("sha256 %q, want that of the edited file", res.SHA256)
	}
	if _, err := WriteFile(ctx, fx.ws, WriteParams{Path: "a.txt", Content: "new\n", ExpectedSHA256: res.SHA256}); err != nil {
		t.Fatalf("a write bound to the patch's result: %v", err)
	}
}
