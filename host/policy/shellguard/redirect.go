package shellguard

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// redirect judges one redirection: reads are path-checked, writes need
// approval (except to /dev/null and the standard streams), writes onto a
// block device are blocked, here-documents need approval.
func (g *guard) redirect(r *syntax.Redirect, f *finding) {
	if r.N != nil && !isDigits(r.N.Value) {
		f.prompt(High, "redirects to a file descriptor held in a variable")
	}
	var target word
	if r.Word != nil {
		target = readWord(r.Word)
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		f.prompt(High, "uses a here-document")
		return
	case syntax.WordHdoc:
		f.prompt(High, "uses a here-string (<<<)")
		return
	case syntax.DplIn, syntax.DplOut:
		if target.literal && isDigits(target.text) && !standardStream(target.text) {
			// Not one the command opened: one its launcher or the
			// operator's shell left open, which could be anything.
			f.prompt(High, "uses descriptor "+target.text+", which the command did not open ("+r.Op.String()+target.text+")")
			return
		}
		if target.literal && (isDigits(target.text) || target.text == "-") {
			return
		}
		if r.Op == syntax.DplIn {
			f.prompt(High, "redirects input in a form the guard cannot read")
			return
		}
	case syntax.RdrIn:
		if !target.literal {
			f.prompt(High, target.why+" in a redirection")
			return
		}
		g.readPath(target.text, f)
		return
	}
	// Everything else writes: >, >>, >|, &>, &>>, <>, >& file.
	if what, ok := g.destructiveSink(target.text); ok {
		f.block("writes onto " + what)
		return
	}
	if target.literal && harmlessSink(target.text) {
		return
	}
	if !target.literal {
		f.prompt(High, target.why+" in a redirection")
	}
	f.prompt(High, "writes a file by redirection ("+r.Op.String()+" "+target.text+")")
}

// harmlessSink names the write targets that change no file.
func harmlessSink(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2":
		return true
	}
	return false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// standardStream: descriptor 0, 1 or 2 (however many leading zeros).
func standardStream(fd string) bool {
	fd = strings.TrimLeft(fd, "0")
	return fd == "" || fd == "1" || fd == "2"
}
