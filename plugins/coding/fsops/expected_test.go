package fsops

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"
)

func sumOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestAWriteBoundToTheFileShownLosesNoLaterChange: a write bound to the
// content it replaces (expected_sha256, which the host sets to the file
// the approver was shown) writes nothing once another change landed in
// between: a save made after the approval, a file created where none was
// shown, a file removed. The other change is kept; the precheck refuses
// the same.
func TestAWriteBoundToTheFileShownLosesNoLaterChange(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	fx.write(t, "a.txt", "v1\n")
	shown := sumOf("v1\n")

	// Someone saved the file after it was shown: refused, their save kept.
	fx.write(t, "a.txt", "the user's edit\n")
	p := WriteParams{Path: "a.txt", Content: "model\n", ExpectedSHA256: shown}
	wantKind(t, WritePrecheck(ctx, fx.ws, p), ErrChanged)
	_, err := WriteFile(ctx, fx.ws, p)
	wantKind(t, err, ErrChanged)
	assertFile(t, fx.in("a.txt"), "the user's edit\n", 0o644)

	// The content shown: written.
	p.ExpectedSHA256 = sumOf("the user's edit\n")
	if err := WritePrecheck(ctx, fx.ws, p); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFile(ctx, fx.ws, p); err != nil {
		t.Fatal(err)
	}
	assertFile(t, fx.in("a.txt"), "model\n", 0o644)

	// Shown as a new file, but one was created meanwhile: refused, kept.
	fx.write(t, "b.txt", "made meanwhile\n")
	wantKind(t, WritePrecheck(ctx, fx.ws, WriteParams{Path: "b.txt", Content: "model\n", ExpectedSHA256: expectAbsent}), ErrChanged)
	_, err = WriteFile(ctx, fx.ws, WriteParams{Path: "b.txt", Content: "model\n", ExpectedSHA256: expectAbsent})
	wantKind(t, err, ErrChanged)
	assertFile(t, fx.in("b.txt"), "made meanwhile\n", 0o644)
	if _, err := WriteFile(ctx, fx.ws, WriteParams{Path: "c.txt", Content: "new\n", ExpectedSHA256: expectAbsent}); err != nil {
		t.Fatal(err)
	}

	// Shown with content, removed meanwhile: not recreated.
	_, err = WriteFile(ctx, fx.ws, WriteParams{Path: "gone.txt", Content: "model\n", ExpectedSHA256: shown})
	wantKind(t, err, ErrChanged)
	if _, err := os.Lstat(fx.in("gone.txt")); !os.IsNotExist(err) {
		t.Fatalf("gone.txt was created: %v", err)
	}

	// A malformed expectation is the model's error, not a match.
	for _, bad := range []string{"V1", sumOf("x")[:63], "ABCDEF" + sumOf("x")[6:]} {
		_, err = WriteFile(ctx, fx.ws, WriteParams{Path: "a.txt", Content: "x", ExpectedSHA256: bad})
		wantKind(t, err, ErrInvalidArgument)
	}
	assertFile(t, fx.in("a.txt"), "model\n", 0o644)
	assertNoStaging(t, fx.root)
}

// TestAChangeAfterTheExpectedHashIsCaughtAtPublish: the identity publish
// requires is the hashed descriptor's, so a save that lands between the
// hash and the exchange is swapped back, not lost.
func TestAChangeAfterTheExpectedHashIsCaughtAtPublish(t *testing.T) {
	fx := newFixture(t)
	fx.write(t, "a.txt", "v1\n")
	beforePublish = func() { fx.write(t, "a.txt", "late save, longer\n") }
	defer func() { beforePublish = nil }()
	_, err := WriteFile(context.Background(), fx.ws, WriteParams{Path: "a.txt", Content: "model\n", ExpectedSHA256: sumOf("v1\n")})
	wantKind(t, err, ErrChanged)
	assertFile(t, fx.in("a.txt"), "late save, longer\n", 0o644)
}
