package fsops

import (
	"context"
	"errors"
	"os"
	"testing"
)

// TestAnOldStringThatOccursTwiceOverlappingIsAmbiguous pins "old_string must
// occur exactly once unless replace_all is set" for occurrences that
// overlap: in "}\n}\n}\n" the text "}\n}\n" starts at two places, and an
// edit counted as unique would change the first where the model may have
// meant the last. The precheck and the edit refuse it as ambiguous, at
// every chunk size (an overlap may straddle a read), and leave the file.
func TestAnOldStringThatOccursTwiceOverlappingIsAmbiguous(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	cases := []struct{ file, old string }{
		{"\t\t}\n\t}\n}\n}\n", "}\n}\n"},
		{"xaaay", "aa"},
		{"abcabcabc", "abcabc"},
		{"0123abab|abab", "abab|abab"}, // one place (no overlap): applies
	}
	defer func(c int) { patchChunk = c }(patchChunk)
	for _, chunk := range []int{1, 2, 3, 5, 256 << 10} {
		patchChunk = chunk
		for _, tc := range cases {
			fx.write(t, "f.txt", tc.file)
			p := PatchParams{Path: "f.txt", OldString: tc.old, NewString: "Z"}
			_, perr := PatchPrecheck(ctx, fx.ws, p)
			_, err := Patch(ctx, fx.ws, p)
			got, _ := os.ReadFile(fx.in("f.txt"))
			if tc.old == "abab|abab" {
				if perr != nil || err != nil || string(got) != "0123Z" {
					t.Fatalf("chunk %d, %q in %q: precheck %v, patch %v, file %q", chunk, tc.old, tc.file, perr, err, got)
				}
				continue
			}
			if !errors.Is(perr, ErrAmbiguousMatch) || !errors.Is(err, ErrAmbiguousMatch) {
				t.Fatalf("chunk %d, %q in %q: precheck %v, patch %v; want both ambiguous", chunk, tc.old, tc.file, perr, err)
			}
			if string(got) != tc.file {
				t.Fatalf("chunk %d: file changed to %q", chunk, got)
			}
		}
	}
	// replace_all keeps the usual non-overlapping replacement.
	patchChunk = 256 << 10
	fx.write(t, "f.txt", "xaaay")
	res, err := Patch(ctx, fx.ws, PatchParams{Path: "f.txt", OldString: "aa", NewString: "b", ReplaceAll: true})
	got, _ := os.ReadFile(fx.in("f.txt"))
	if err != nil || res.Replacements != 1 || string(got) != "xbay" {
		t.Fatalf("replace_all: %+v %v %q", res, err, got)
	}
}
