package shellguard

import (
	"regexp"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A shell reading its standard input runs what it is fed, and xargs adds
// what it is fed to its command: echo 'rm -rf /' | sh, sh <<EOF, bash <<<
// 'rm -rf /', echo / | xargs rm -rf. When the feed is text the guard can
// read (echo, printf, yes, a here-document or here-string; the paths ls
// or an unfiltered find would list), the fed command is judged for
// destructive payloads as if written out.

// stdinConsumer is what a statement's program does with its input, as
// recorded by the wrappers that judged it.
type stdinConsumer struct {
	shell  bool     // a shell reading commands from its input
	xargs  []string // xargs's own arguments, when xargs runs
	interp string   // an interpreter reading its program from its input
}

func (c stdinConsumer) consumes() bool { return c.shell || c.xargs != nil || c.interp != "" }

// feedStdin judges what a statement's here-documents and here-strings
// feed its program.
func (g *guard) feedStdin(s *syntax.Stmt, c stdinConsumer, depth int, f *finding) {
	if !c.consumes() {
		return
	}
	for _, r := range s.Redirs {
		var body *syntax.Word
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			body = r.Hdoc
		case syntax.WordHdoc:
			body = r.Word
		}
		if body != nil {
			g.feed(c, readWord(body).text, nil, depth, f)
		}
	}
}

// feedPipe judges what the left side of a pipe feeds the right side.
func (g *guard) feedPipe(x *syntax.Stmt, c stdinConsumer, depth int, f *finding) {
	if !c.consumes() {
		return
	}
	if text, tokens, ok := feedOf(x); ok {
		g.feed(c, text, tokens, depth, f)
	}
}

// feed judges text (or path tokens) fed to a consumer; only blocks count,
// the consumer was judged already.
func (g *guard) feed(c stdinConsumer, text string, tokens []string, depth int, f *finding) {
	var fed finding
	if c.shell && strings.TrimSpace(text) != "" {
		g.reviewInner(text, depth, &fed)
	}
	if c.interp != "" && text != "" {
		g.interpreterCode(c.interp, text, depth, &fed)
	}
	for _, r := range fed.blocks {
		f.block("fed to a shell or interpreter on its input: " + r)
	}
	if c.xargs != nil {
		if tokens == nil {
			tokens = xargsItems(c.xargs, text)
		}
		if len(tokens) > 0 {
			argv := append(append([]string{"xargs"}, c.xargs...), tokens...)
			g.blocksOnly(f, func(tmp *finding) { g.judge(argv, depth+1, tmp) })
		}
	}
}

// xargsItems splits text into the items xargs, given args, reads from it:
// at NULs with -0 (--null), at the one byte -d (--delimiter) names, else
// at blanks and newlines. With -0 or -d an item keeps its blanks (echo
// 'rm -rf /' | xargs -0 sh -c runs sh -c 'rm -rf /<newline>').
func xargsItems(args []string, text string) []string {
	sep := ""
	for _, o := range xargsGetopt.parse(args).opts { // the last one given wins
		switch o.name {
		case "null":
			sep = "\x00"
		case "delimiter":
			sep = decodeANSIC(o.value)
		}
	}
	if len(sep) != 1 {
		return strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == 0 })
	}
	var items []string
	for _, it := range strings.Split(text, sep) {
		if it != "" {
			items = append(items, it)
		}
	}
	return items
}

// feedOf reads what a statement prints, when the guard can tell: the text
// of echo, printf, yes and cat of a here-document, or the paths that ls
// and an unfiltered find list (as tokens).
func feedOf(s *syntax.Stmt) (text string, tokens []string, ok bool) {
	switch c := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			if passesThrough(c.Y) {
				return feedOf(c.X) // what a filter passes is part of what it reads
			}
			if decode := decoderOf(c.Y); decode != nil {
				if text, _, ok := feedOf(c.X); ok {
					if out, ok := decode(text); ok {
						return out, nil, true
					}
				}
				return "", nil, false
			}
			return feedOf(c.Y)
		}
		return "", nil, false
	case *syntax.Subshell:
		// (echo 'rm -rf /') | sh: one statement prints what it prints.
		if len(c.Stmts) == 1 {
			return feedOf(c.Stmts[0])
		}
	case *syntax.Block:
		if len(c.Stmts) == 1 {
			return feedOf(c.Stmts[0])
		}
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return "", nil, false
		}
		argv := make([]string, len(c.Args))
		for i, w := range c.Args {
			argv[i] = readWord(w).text
		}
		return printed(baseName(argv[0]), argv[1:], s)
	}
	return "", nil, false
}

func printed(name string, args []string, s *syntax.Stmt) (string, []string, bool) {
	switch name {
	case "echo":
		escapes := false
		for len(args) > 0 && len(args[0]) > 1 && strings.Trim(args[0], "-neE") == "" && args[0][0] == '-' {
			escapes = escapes || strings.Contains(args[0], "e")
			args = args[1:]
		}
		text := strings.Join(args, " ")
		if escapes {
			text = decodeANSIC(text)
		}
		return text, nil, true
	case "printf":
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		if len(args) == 0 {
			return "", nil, false
		}
		format := decodeANSIC(printfDirective.ReplaceAllString(args[0], " "))
		return format + " " + strings.Join(args[1:], " "), nil, true
	case "pwd":
		return "$PWD", nil, true
	case "pgrep":
		if _, all := selectsEveryProcess(args); all {
			return "", []string{"--", "-1"}, true // every pid: what kill -- -1 reaches
		}
	case "yes":
		if len(args) == 0 {
			return "y", nil, true
		}
		return strings.Join(args, " "), nil, true
	case "cat":
		for _, r := range s.Redirs {
			switch r.Op {
			case syntax.Hdoc, syntax.DashHdoc:
				return readWord(r.Hdoc).text, nil, true
			case syntax.WordHdoc:
				return readWord(r.Word).text, nil, true
			}
		}
	case "ls":
		ops := operands(args)
		if len(ops) == 0 {
			ops = []string{"."}
		}
		return "", ops, true
	case "find":
		starts, expr := splitFind(args)
		if findNarrows(expr) || findRemoves(expr) {
			return "", nil, false
		}
		if len(starts) == 0 {
			starts = []string{"."}
		}
		return "", starts, true
	}
	return "", nil, false
}

// filters pass on (part of) what they read.
var filters = map[string]bool{"grep": true, "egrep": true, "fgrep": true, "cat": true, "head": true, "tail": true, "sort": true,
	"uniq": true, "tee": true, "sed": true, "tac": true, "rg": true, "stdbuf": true}

// passesThrough reports a pipe stage that is a filter reading its input.
func passesThrough(s *syntax.Stmt) bool {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || len(s.Redirs) > 0 {
		return false
	}
	return filters[baseName(readWord(c.Args[0]).text)]
}

// decoderOf returns how a pipe stage transforms text it reads, for the
// decoders a payload is hidden behind (rev). base64 -d is left out: the
// guard's table (table_test.go) holds its decoded rm -rf / at prompt.
func decoderOf(s *syntax.Stmt) func(string) (string, bool) {
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 || len(s.Redirs) > 0 {
		return nil
	}
	argv := make([]string, len(c.Args))
	for i, w := range c.Args {
		argv[i] = readWord(w).text
	}
	switch baseName(argv[0]) {
	case "rev":
		if len(argv) == 1 {
			return reverseLines
		}
	}
	return nil
}

func reverseLines(text string) (string, bool) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		r := []rune(l)
		for a, b := 0, len(r)-1; a < b; a, b = a+1, b-1 {
			r[a], r[b] = r[b], r[a]
		}
		lines[i] = string(r)
	}
	return strings.Join(lines, "\n"), true
}

// printfDirective is a printf conversion, replaced by a space so that the
// arguments read as words.
var printfDirective = regexp.MustCompile(`%[-+ #0-9.*]*[a-zA-Z%]`)
