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

// simpleWord is one word of a simple command, allocated together.
type simpleWord struct {
	word syntax.Word
	part [1]syntax.WordPart
	lit  syntax.Lit
}

// simpleFile is the parser's tree for src when src is a simple command:
// words of simpleByte separated by spaces, the first neither an
// assignment (it holds no '=') nor reserved. ok is false otherwise, and
// the caller parses.
func simpleFile(src string) (file *syntax.File, ok bool) {
	if len(src) > maxSimpleBytes {
		return nil, false
	}
	n, first := 0, ""
	for i := 0; i < len(src); i++ {
		c := src[i]
		if !simpleByte[c] {
			return nil, false
		}
		if c != ' ' && (i == 0 || src[i-1] == ' ') {
			if n == 0 {
				first, _, _ = strings.Cut(src[i:], " ")
			}
			n++
		}
	}
	if n == 0 || strings.IndexByte(first, '=') >= 0 || reservedFirst[first] {
		return nil, false
	}
	var t struct {
		file  syntax.File
		stmt  syntax.Stmt
		call  syntax.CallExpr
		stmts [1]*syntax.Stmt
	}
	words := make([]simpleWord, n)
	args := make([]*syntax.Word, n)
	k := 0
	for i := 0; i < len(src); {
		if src[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(src) && src[j] != ' ' {
			j++
		}
		w := &words[k]
		w.lit = syntax.Lit{ValuePos: pos(i), ValueEnd: pos(j), Value: src[i:j]}
		w.part[0] = &w.lit
		w.word.Parts = w.part[:]
		args[k] = &w.word
		k++
		i = j
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
