package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Most commands an agent runs are one program and a few plain words
// (ls -la src, git status, cat main.go). For those, the syntax tree is
// built here instead of by the parser, which costs a third of a check
// (and most of its allocations: the parser hands out words and literals
// in batches of 32). The tree is the parser's own, position for position
// (TestSimpleFileIsTheParsersTree compares them, over the table and
// generated commands): nothing after the parse knows which built it.

// maxSimpleBytes bounds the commands built here; longer ones are parsed.
const maxSimpleBytes = 1024

// simpleByte are the bytes a simple command may hold: letters, digits,
// spaces and punctuation that bash gives no meaning in a word. No
// quoting, expansion ($ ` ~ { * ? [), redirection, operator, comment,
// escape, tab or newline.
var simpleByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range " _-./,:@%+=" {
		t[c] = true
	}
	return t
}()

// reservedFirst are first words the parser reads as something other than
// a program (reserved words, bash's declaration builtins, let, bats'
// @test): a command starting with one is parsed.
var reservedFirst = map[string]bool{
	"!": true, "{": true, "}": true, "[[": true, "]]": true, "case": true, "coproc": true,
	"do": true, "done": true, "elif": true, "else": true, "esac": true, "fi": true,
	"for": true, "function": true, "if": true, "in": true, "select": true, "then": true,
	"time": true, "until": true, "while": true, "let": true, "declare": true, "local": true,
	"export": true, "readonly": true, "typeset": true, "nameref": true, "@test": true,
}

// simpleInline is how many words and literals a simple tree holds in
// its own allocation; a longer command takes slices of its own.
const simpleInline = 6

// simpleTree is a simple command's tree, allocated at once.
type simpleTree struct {
	file  syntax.File
	stmt  syntax.Stmt
	call  syntax.CallExpr
	stmts [1]*syntax.Stmt
	words [simpleInline]syntax.Word
	args  [simpleInline]*syntax.Word
	parts [simpleInline]syntax.WordPart
	lits  [simpleInline]syntax.Lit
}

// inline is buf[:n] when n fits in it, and a new slice otherwise.
func inline[T any](buf []T, n int) []T {
	if n <= len(buf) {
		return buf[:n]
	}
	return make([]T, n)
}

// simpleFile is the parser's tree for src when src is a simple command:
// words of simpleByte and single-quoted strings of printable ASCII,
// separated by spaces, the first neither an assignment (it holds no
// '=') nor reserved. ok is false otherwise, and the caller parses.
func simpleFile(src string) (file *syntax.File, ok bool) {
	if len(src) > maxSimpleBytes {
		return nil, false
	}
	// Count the words, literals and quoted strings, and check every byte.
	words, lits, sgls, first := 0, 0, 0, -1
	inWord, quoted := false, false
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quoted:
			if c == '\'' {
				quoted = false
			} else if c < 0x20 || c > 0x7e {
				return nil, false
			}
			continue
		case c == ' ':
			if inWord && first < 0 {
				first = i
			}
			inWord = false
			continue
		case c == '\'':
			quoted = true
			sgls++
		case !simpleByte[c]:
			return nil, false
		case i == 0 || src[i-1] == ' ' || src[i-1] == '\'':
			lits++ // a literal starts
		}
		if !inWord {
			words++
			inWord = true
		}
	}
	if quoted || words == 0 {
		return nil, false
	}
	if first < 0 {
		first = len(src)
	}
	head := strings.TrimLeft(src[:first], " ")
	if strings.IndexByte(head, '=') >= 0 || reservedFirst[head] {
		return nil, false
	}
	t := new(simpleTree)
	ws := inline(t.words[:], words)
	args := inline(t.args[:], words)
	wps := inline(t.parts[:], lits+sgls)
	ls := inline(t.lits[:], lits)
	var ss []syntax.SglQuoted
	if sgls > 0 {
		ss = make([]syntax.SglQuoted, sgls)
	}
	k, n := 0, 0
	for i := 0; i < len(src); {
		if src[i] == ' ' {
			i++
			continue
		}
		start := n
		for i < len(src) && src[i] != ' ' {
			if src[i] == '\'' {
				j := i + 1 + strings.IndexByte(src[i+1:], '\'')
				q := &ss[0]
				ss = ss[1:]
				*q = syntax.SglQuoted{Left: pos(i), Right: pos(j), Value: src[i+1 : j]}
				wps[n] = q
				i = j + 1
			} else {
				j := i
				for j < len(src) && src[j] != ' ' && src[j] != '\'' {
					j++
				}
				l := &ls[0]
				ls = ls[1:]
				*l = syntax.Lit{ValuePos: pos(i), ValueEnd: pos(j), Value: src[i:j]}
				wps[n] = l
				i = j
			}
			n++
		}
		ws[k].Parts = wps[start:n:n]
		args[k] = &ws[k]
		k++
	}
	t.call.Args = args
	t.stmt.Cmd = &t.call
	t.stmt.Position = args[0].Pos()
	t.stmts[0] = &t.stmt
	t.file.Stmts = t.stmts[:]
	return &t.file, true
}

// pos is the position of byte offset i of a one-line source.
func pos(i int) syntax.Pos { return syntax.NewPos(uint(i), 1, uint(i)+1) }
