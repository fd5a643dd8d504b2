package shellguard

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// parsed is the parser's tree for src, as review gets it.
func parsed(t testing.TB, src string) (*syntax.File, error) {
	t.Helper()
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true)).Parse(strings.NewReader(src), "")
}

// sameTree fails when simpleFile builds a tree for src that is not the
// parser's, or builds one where the parser fails.
func sameTree(t testing.TB, src string) bool {
	t.Helper()
	got, ok := simpleFile(src)
	if !ok {
		return false
	}
	want, err := parsed(t, src)
	if err != nil {
		t.Fatalf("simpleFile(%q) built a tree; the parser fails: %v", src, err)
	}
	if !reflect.DeepEqual(got, want) {
		var a, b strings.Builder
		syntax.DebugPrint(&a, got)
		syntax.DebugPrint(&b, want)
		t.Fatalf("simpleFile(%q):\n%s\nthe parser:\n%s", src, a.String(), b.String())
	}
	return true
}

// TestSimpleFileIsTheParsersTree: wherever simpleFile builds a tree, it is
// the parser's, field for field and position for position: over the
// table, and over commands made of the bytes and words where the two
// could part (reserved words, assignments, punctuation, spaces).
func TestSimpleFileIsTheParsersTree(t *testing.T) {
	built := 0
	for _, r := range table {
		if sameTree(t, r.cmd) {
			built++
		}
	}
	if built < len(table)/2 {
		t.Fatalf("simpleFile built %d trees of %d table commands", built, len(table))
	}
	pieces := []string{"ls", "-la", "a=b", "=", "+", "a+=b", "x", "--color=auto", "@", "@test", "%1", ":",
		",", ".", "..", "/", "-", "--", "time", "if", "fi", "then", "else", "in", "done", "do", "esac",
		"let", "declare", "export", "local", "coproc", "function", "select", "nameref", "typeset",
		"readonly", "case", "for", "while", "until", "elif", "a@b", "a:b", "A_1", "9", "2", "x=", "_=1",
		"'", "''", "'a b'", "'%H %s'", "'*.go'", "'$x'", "'a;b|c&d'", "'#'", "'\\'", "'\"'", "'if'", "'a=b'",
		"' '", "'~'", "'{a,b}'", "'`id`'", "'\t'"}
	rng := rand.New(rand.NewPCG(53, 1))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(2*simpleInline) {
			b.WriteString(strings.Repeat(" ", rng.IntN(3)))
			b.WriteString(pieces[rng.IntN(len(pieces))])
			if rng.IntN(4) == 0 {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		b.WriteString(strings.Repeat(" ", rng.IntN(2)))
		sameTree(t, b.String())
	}
}

// FuzzSimpleFile: any input simpleFile builds a tree for is parsed to
// the same tree.
func FuzzSimpleFile(f *testing.F) {
	for _, r := range table {
		f.Add(r.cmd)
	}
	f.Fuzz(func(t *testing.T, src string) { sameTree(t, src) })
}
