package shellguard

import (
	"strings"
	"testing"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzCheck: the guard never panics, and never allows a command that does
// not parse, holds a word that is not literal, or holds a construct other
// than simple commands joined by pipes and lists.
func FuzzCheck(f *testing.F) {
	for _, r := range table {
		f.Add(r.cmd)
	}
	for _, s := range []string{
		"ls $", "ls '", "ls \\", "echo ${", "$(", "`", "a=(", "ls <<", "ls >", "{", "((", "[[", "case",
		"ls\\\n-la", "echo \"a\\\"b\"", "echo 'a'\"b\"c", "ls -- -rf", "git -C", "sed -n", "sed -e", "find -exec",
		"xargs -a", "env -S", "sudo -u", "timeout", "nice -", "bash -c", "rm -rf", "kill --", "date -d",
	} {
		f.Add(s)
	}
	// Shapes that once cost quadratic time or deep recursion.
	for _, s := range []string{"echo [[[[[[[[[[", "echo {{{{{{{{}", "$($($($($(", "((((((((()))))))))", "time time time ls",
		"ls | ls | ls | ls", "strace find -exec strace find -exec rm", "sudo sudo sudo rm -rf /"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		v := Check(cmd, tableOptions)
		if v.Decision < Allow || v.Decision > Block || v.Risk < Low || v.Risk > High {
			t.Fatalf("Check(%q) = out-of-range verdict %+v", cmd, v)
		}
		if v.Decision != Allow {
			if len(v.Reasons) == 0 {
				t.Fatalf("Check(%q) = %v without a reason", cmd, v.Decision)
			}
			return
		}
		if v.Risk != Low || len(v.Reasons) != 0 {
			t.Fatalf("Check(%q) allows at %v with reasons %q", cmd, v.Risk, v.Reasons)
		}
		if !utf8.ValidString(cmd) || strings.ContainsRune(cmd, 0) || len(cmd) > MaxCommandBytes {
			t.Fatalf("Check(%q) allows input that is not reviewable text", cmd)
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil {
			t.Fatalf("Check(%q) allows input that does not parse: %v", cmd, err)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.Word:
				if w := readWord(n); !w.literal {
					t.Fatalf("Check(%q) allows a word that is not literal (%s)", cmd, w.why)
				}
			case *syntax.Stmt:
				if n.Background || n.Coprocess {
					t.Fatalf("Check(%q) allows a background statement", cmd)
				}
			case *syntax.CallExpr:
				if len(n.Assigns) > 0 {
					t.Fatalf("Check(%q) allows an inline assignment", cmd)
				}
			case *syntax.Redirect:
				if n.Op != syntax.DplOut && n.Op != syntax.DplIn && n.Op != syntax.RdrIn && !harmlessSink(readWord(n.Word).text) {
					t.Fatalf("Check(%q) allows a redirection that writes", cmd)
				}
			case *syntax.File, *syntax.BinaryCmd, *syntax.Lit, *syntax.SglQuoted, *syntax.DblQuoted, *syntax.TimeClause:
			case nil:
			default:
				t.Fatalf("Check(%q) allows a %T", cmd, n)
			}
			return true
		})
	})
}
