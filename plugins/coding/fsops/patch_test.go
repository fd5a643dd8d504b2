package fsops

import (
	"bytes"
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestPatchPrecheck(t *testing.T) {
	fx := boundaryFixture(t)
	fx.write(t, "code.go", "a := 1\nb := 2\na := 1\na := 1\nfunc main() {}\n")
	tests := []struct {
		name    string
		p       PatchParams
		kind    error
		message string // part of the refusal the model reads
		matches int
	}{
		{name: "unique", p: PatchParams{Path: "code.go", OldString: "b := 2", NewString: "b := 3"}, matches: 1},
		{name: "replace all", p: PatchParams{Path: "code.go", OldString: "a := 1", NewString: "a := 9", ReplaceAll: true}, matches: 3},
		{name: "not unique", p: PatchParams{Path: "code.go", OldString: "a := 1", NewString: "a := 9"}, kind: ErrAmbiguousMatch, message: "old_string occurs 3 times; add surrounding context or set replace_all"},
		{name: "absent", p: PatchParams{Path: "code.go", OldString: "c := 3", NewString: "c := 4"}, kind: ErrNoMatch, message: "not found"},
		{name: "identical", p: PatchParams{Path: "code.go", OldString: "b := 2", NewString: "b := 2"}, kind: ErrInvalidArgument, message: "identical"},
		{name: "empty old_string", p: PatchParams{Path: "code.go", OldString: "", NewString: "x"}, kind: ErrInvalidArgument, message: "write_file"},
		{name: "missing file", p: PatchParams{Path: "nope.go", OldString: "a", NewString: "b"}, kind: ErrNotFound},
		{name: "sensitive", p: PatchParams{Path: ".env", OldString: "TOKEN", NewString: "T"}, kind: ErrSensitive},
		{name: "symlink", p: PatchParams{Path: "alias.txt", OldString: "hello", NewString: "bye"}, kind: ErrSymlink},
		{name: "hard link", p: PatchParams{Path: "hardlink.txt", OldString: "twice", NewString: "once"}, kind: ErrHardLinked},
		{name: "fifo", p: PatchParams{Path: "pipe", OldString: "a", NewString: "b"}, kind: ErrNotRegular},
		{name: "outside", p: PatchParams{Path: "../outside/secret.txt", OldString: "secret", NewString: "x"}, kind: ErrOutsideWorkspace},
		{name: "escape symlink", p: PatchParams{Path: "escape_rel", OldString: "secret", NewString: "x"}, kind: ErrSymlink},
	}
	before := snapshot(t, fx.root)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := within(t, 5*time.Second, func(ctx context.Context) (PrecheckResult, error) {
				return PatchPrecheck(ctx, fx.ws, tc.p)
			})
			wantKind(t, err, tc.kind)
			if err != nil && !strings.Contains(err.Error(), tc.message) {
				t.Fatalf("refusal %q does not say %q", err, tc.message)
			}
			if tc.kind == nil && res.Matches != tc.matches {
				t.Fatalf("matches = %d, want %d", res.Matches, tc.matches)
			}
		})
	}
	if after := snapshot(t, fx.root); after != before {
		t.Fatal("the precheck changed the tree")
	}
}

func TestPatchApplies(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	fx.write(t, "run.sh", "#!/bin/sh\necho one\necho two\necho three\necho four\necho two\n")
	if err := os.Chmod(fx.in("run.sh"), 0o750); err != nil {
		t.Fatal(err)
	}

	res, err := Patch(ctx, fx.ws, PatchParams{Path: "run.sh", OldString: "echo three", NewString: "echo 3\necho 3b"})
	if err != nil {
		t.Fatal(err)
	}
	want := "#!/bin/sh\necho one\necho two\necho 3\necho 3b\necho four\necho two\n"
	assertFile(t, fx.in("run.sh"), want, 0o750)
	if res.Replacements != 1 || res.BytesBefore != int64(len(want)-4) || res.BytesAfter != int64(len(want)) {
		t.Fatalf("result %+v", res)
	}
	wantDiff := "@@ -1,6 +1,7 @@\n #!/bin/sh\n echo one\n echo two\n-echo three\n+echo 3\n+echo 3b\n echo four\n echo two\n"
	if res.Diff != wantDiff {
		t.Fatalf("diff:\n%s\nwant:\n%s", res.Diff, wantDiff)
	}

	res, err = Patch(ctx, fx.ws, PatchParams{Path: "run.sh", OldString: "echo two", NewString: "echo 2", ReplaceAll: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Replacements != 2 {
		t.Fatalf("replacements = %d", res.Replacements)
	}
	assertFile(t, fx.in("run.sh"), "#!/bin/sh\necho one\necho 2\necho 3\necho 3b\necho four\necho 2\n", 0o750)
	assertNoStaging(t, fx.root)
}

// A rejected edit discards its staged file: the original keeps its bytes
// and its inode, and no staging file remains.
func TestPatchRejectedLeavesOriginal(t *testing.T) {
	fx := newFixture(t)
	original := strings.Repeat("same line\n", 100)
	fx.write(t, "f.txt", original)
	var st0 syscall.Stat_t
	if err := syscall.Stat(fx.in("f.txt"), &st0); err != nil {
		t.Fatal(err)
	}
	for _, p := range []PatchParams{
		{Path: "f.txt", OldString: "same line", NewString: "other"},
		{Path: "f.txt", OldString: "absent", NewString: "other"},
	} {
		_, err := Patch(context.Background(), fx.ws, p)
		if err == nil {
			t.Fatalf("%+v applied", p)
		}
	}
	var st1 syscall.Stat_t
	if err := syscall.Stat(fx.in("f.txt"), &st1); err != nil {
		t.Fatal(err)
	}
	if st0.Ino != st1.Ino {
		t.Fatal("the file was replaced by a rejected edit")
	}
	assertFile(t, fx.in("f.txt"), original, 0o644)
	assertNoStaging(t, fx.root)
}

// Matches split across chunk boundaries are found: the streaming pass is
// compared with strings.Count/Replace for every small chunk size.
func TestReplaceStreamAcrossChunks(t *testing.T) {
	tests := []struct {
		text, old, repl string
	}{
		{"abcabcabc", "abc", "X"},
		{"aaaaa", "aaa", "b"}, // non-overlapping, left to right
		{"xxabxxabxx", "ab", ""},
		{"no match here", "zzz", "y"},
		{"edge", "edge", "EDGE"},
		{"line one\nline two\nline three\n", "two\nline", "2\nLINE"},
		{strings.Repeat("0123456789", 20), "89012", "!"},
		{"ééé", "é", "e"},
		{"a", "a", "bb"},
	}
	for chunk := 1; chunk <= 13; chunk++ {
		for _, tc := range tests {
			for _, all := range []bool{true, false} {
				var out bytes.Buffer
				st, err := replaceStream(context.Background(), strings.NewReader(tc.text), &out, []byte(tc.old), []byte(tc.repl), all, chunk)
				if err != nil {
					t.Fatal(err)
				}
				n := -1
				if !all {
					n = 1
				}
				want := strings.Replace(tc.text, tc.old, tc.repl, n)
				if out.String() != want || st.matches != strings.Count(tc.text, tc.old) {
					t.Fatalf("chunk %d %q/%q all=%v: got %q (%d matches), want %q (%d)", chunk, tc.text, tc.old, all, out.String(), st.matches, want, strings.Count(tc.text, tc.old))
				}
				if st.bytesIn != int64(len(tc.text)) || st.bytesOut != int64(len(want)) {
					t.Fatalf("chunk %d: bytes in %d out %d", chunk, st.bytesIn, st.bytesOut)
				}
			}
		}
	}
}

// Patch itself, not only the stream, finds a split match and publishes.
func TestPatchSplitMatchTinyChunks(t *testing.T) {
	defer func(n int) { patchChunk = n }(patchChunk)
	patchChunk = 3
	fx := newFixture(t)
	fx.write(t, "f.txt", "0123456789needle0123456789\n")
	if _, err := Patch(context.Background(), fx.ws, PatchParams{Path: "f.txt", OldString: "needle", NewString: "pin"}); err != nil {
		t.Fatal(err)
	}
	assertFile(t, fx.in("f.txt"), "0123456789pin0123456789\n", 0o644)
}

func TestExcerptRender(t *testing.T) {
	tests := []struct {
		name, text, old, repl, want string
	}{
		{"middle of a line", "a\nb\nxx OLD yy\nc\nd\ne\nf\n", "OLD", "NEW",
			"@@ -1,6 +1,6 @@\n a\n b\n-xx OLD yy\n+xx NEW yy\n c\n d\n e\n"},
		{"first line, no newline at end", "OLD", "OLD", "NEW", "@@ -1,1 +1,1 @@\n-OLD\n+NEW\n"},
		{"deletion of a line", "a\nOLD\nb\n", "OLD\n", "", "@@ -1,3 +1,2 @@\n a\n-OLD\n b\n"}, // b is unchanged: context, not -b +b
	}
	for _, tc := range tests {
		st, err := replaceStream(context.Background(), strings.NewReader(tc.text), &bytes.Buffer{}, []byte(tc.old), []byte(tc.repl), true, patchChunk)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.ex.render(tc.old, tc.repl); got != tc.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
}
