package shellguard

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// s53f: an outsider's attack on simple.go. Check(src) takes the simple
// tree wherever simpleFile accepts src; Check(src+"\n") never does (a
// newline is no simple byte) and parses, as main did for every command.
// A newline after the last word changes no word, position or part text,
// so the two verdicts must be equal, field for field.

// parserVerdict is src's verdict through the parser.
func parserVerdict(src string, o Options) Verdict {
	v := Check(src+"\n", o)
	for i := range v.Parts {
		v.Parts[i].Text = strings.TrimSuffix(v.Parts[i].Text, "\n")
	}
	return v
}

// sortedReasons sorts v's reasons: some come out of a map walk (the
// destructive programs a glob may name), in any order on either path.
func sortedReasons(v Verdict) Verdict {
	slices.Sort(v.Reasons)
	for i := range v.Parts {
		slices.Sort(v.Parts[i].Reasons)
	}
	return v
}

// sameVerdict fails when src's verdict through the simple tree is not
// its verdict through the parser; it reports whether the simple tree was
// taken.
func sameVerdict(t *testing.T, src string, o Options) bool {
	t.Helper()
	_, simple := simpleFile(src)
	if !simple {
		return false // both are the parser's; only the newline's parse errors would differ
	}
	got, want := sortedReasons(Check(src, o)), sortedReasons(parserVerdict(src, o))
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Check(%q) (simple tree: %v):\n%+v\nthrough the parser:\n%+v", src, simple, got, want)
	}
	return simple
}

// s53fOdd are the spellings that could slip into simple.go and mean
// something else to bash.
var s53fOdd = []string{
	"%", "%1", "%%", "%+", "%-", "@", "@(x)", "+(x)", "a@b", ":", "::", ":x", "=", "==", "a=", "=a", ",", "a,b",
	"+", "++", "+=", "a+=b", "''", "'''", "''''", "'a'b", "a'b'", "'a''b'", "a''", "''a", "' '", "'  '",
	"'if'", "'!'", "'time'", "if", "then", "fi", "!", "{", "}", "time", "coproc", "function", "let", "declare",
	"export", "local", "readonly", "typeset", "nameref", "@test", "in", "do", "done", "case", "esac",
	"select", "until", "while", "for", "elif", "else", "[[", "]]", "[", "]", "eval", "exec", "command",
	"builtin", "source", ".", "..", "-", "--", "-c", "-rf", "/", "~", "~root", "'\x80'", "'\xff'",
	"'\xc2\xad'", "'\xe2\x80\x8b'", "\x00", "'\x00'", "'\x7f'", "'\t'", "'\r'", "x\x00y",
	"'rm -rf /'", "'id'", "'$(id)'", "'`id`'", "'a;b'", "'*'", "'?'", "'[a]'", "'{a,b}'",
}

// s53fCmds are programs whose verdicts differ, so a tree that reads
// otherwise shows in the verdict.
var s53fCmds = []string{
	"ls", "rm", "rm -rf", "rm -rf /", "git", "git -c", "git status", "git config", "sudo", "env", "bash -c",
	"sh -c", "find . -exec", "chmod", "curl", "cat", "cat /etc/shadow", "cat ~/.ssh/id_rsa", "dd",
	"xargs", "timeout 5", "nohup", "eval", "exec", "command", "builtin", "source", "kill -9", "npm install",
	"python3 -c", "cp", "mv", "tee", "sed -i", "echo",
}

func TestS53fSimpleVerdictIsTheParsers(t *testing.T) {
	opts := []Options{tableOptions, {WorkspaceRoot: t.TempDir()}}
	simple := 0
	for _, r := range table {
		if sameVerdict(t, r.cmd, tableOptions) {
			simple++
		}
	}
	if simple < len(table)/2 {
		t.Fatalf("only %d of %d table commands took the simple tree", simple, len(table))
	}
	// Hand-picked: each odd spelling first, alone, after and before a
	// program, with spaces around.
	for _, o := range opts {
		for _, w := range s53fOdd {
			for _, c := range s53fCmds {
				for _, src := range []string{w, " " + w, w + " ", w + " " + c, c + " " + w, c + w, c + " " + w + " /",
					c + "  " + w + "  ", w + "=" + c, c + " " + w + w} {
					sameVerdict(t, src, o)
				}
			}
		}
	}
	// Words near the 1024-byte bound.
	for n := 1000; n <= 1030; n++ {
		for _, c := range []string{"rm -rf ", "ls ", "git -c ", "echo '"} {
			src := c + strings.Repeat("a", n-len(c))
			if strings.HasSuffix(c, "'") {
				src = src[:len(src)-1] + "'"
			}
			if len(src) != n {
				t.Fatalf("len %d, want %d", len(src), n)
			}
			sameVerdict(t, src, tableOptions)
			sameVerdict(t, src[:n-2]+" /", tableOptions)
		}
	}
	// Generated: programs, odd spellings and table words, glued or spaced.
	var pieces []string
	pieces = append(pieces, s53fOdd...)
	pieces = append(pieces, s53fCmds...)
	for _, r := range table {
		pieces = append(pieces, strings.Fields(r.cmd)...)
	}
	rng := rand.New(rand.NewPCG(53, 6))
	for range 30000 {
		var b strings.Builder
		b.WriteString(strings.Repeat(" ", rng.IntN(2)))
		b.WriteString(s53fCmds[rng.IntN(len(s53fCmds))])
		for range rng.IntN(8) {
			if rng.IntN(5) != 0 {
				b.WriteString(strings.Repeat(" ", 1+rng.IntN(2)))
			}
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		b.WriteString(strings.Repeat(" ", rng.IntN(2)))
		if sameVerdict(t, b.String(), opts[rng.IntN(len(opts))]) {
			simple++
		}
	}
	t.Logf("%d commands took the simple tree", simple)
}
