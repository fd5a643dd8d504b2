package redact

import (
	"reflect"
	"strings"
	"testing"
)

func words(toks []token) []string {
	var out []string
	for _, t := range toks {
		if t.sep {
			out = append(out, ";")
		} else {
			out = append(out, t.text)
		}
	}
	return out
}

func TestTokenize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"mysql -u root -pS3cret db", []string{"mysql", "-u", "root", "-pS3cret", "db"}},
		{`curl -H "Authorization: Bearer abc" 'https://x'`, []string{"curl", "-H", "Authorization: Bearer abc", "https://x"}},
		{`echo "a \"q\" \\ \n"`, []string{"echo", `a "q" \ \n`}},
		{`a\ b c`, []string{"a b", "c"}},
		{"a && b | c; d\ne", []string{"a", ";", "b", ";", "c", ";", "d", ";", "e"}},
		{`x='unterminated`, []string{"x=unterminated"}},
		{`x="unterminated`, []string{"x=unterminated"}},
		{`''`, []string{""}},
		{"line \\\ncontinued", []string{"line", "continued"}},
		{"trailing\\", []string{"trailing"}},
		{"", nil},
	} {
		if got := words(tokenize(tc.in)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("tokenize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"mysql -pX db", `a "b\"c" 'd'`, "a;b&&c||d\n", `\`, `"`, `'`, "x=\"y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := tokenize(s)
		total := 0
		for i, tok := range toks {
			if tok.sep && i > 0 && toks[i-1].sep {
				t.Fatalf("two separators in a row in %q", s)
			}
			total += len(tok.text)
		}
		if total > len(s) { // quoting only removes bytes
			t.Fatalf("tokens of %q hold %d bytes, more than the input", s, total)
		}
		if !strings.ContainsAny(s, "\\'\"") {
			for _, tok := range toks {
				if !tok.sep && !strings.Contains(s, tok.text) {
					t.Fatalf("unquoted input %q gave token %q that is not in it", s, tok.text)
				}
			}
		}
	})
}
