package shellguard

import (
	"path"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// call judges a simple command and returns the program it runs.
func (g *guard) call(c *syntax.CallExpr, depth int, f *finding) string {
	if len(c.Assigns) > 0 {
		f.prompt(High, "sets environment variables inline (NAME=value command)")
	}
	if len(c.Args) == 0 {
		return ""
	}
	argv := make([]string, len(c.Args))
	for i, w := range c.Args {
		wd := readWord(w)
		argv[i] = wd.text
		if !wd.literal {
			f.prompt(High, wd.why+" is not provably literal")
		}
	}
	return g.judge(argv, depth, f)
}

// judge classifies one argv. Words that were not literal have already
// raised the finding; their renderings still let destructive payloads
// (rm -rf "$HOME") be spotted.
func (g *guard) judge(argv []string, depth int, f *finding) string {
	name, args := argv[0], argv[1:]
	if depth > maxDepth {
		f.block("commands nested too deep to review")
		return ""
	}
	if name == "" {
		f.prompt(High, "the command name is empty")
		return ""
	}
	base := name
	if strings.ContainsRune(name, '/') {
		f.prompt(High, "runs "+strconv.Quote(name)+" by path; only bare command names are auto-approved")
		base = path.Base(name)
	}
	if strings.ContainsAny(base, "*?[") {
		g.globProgram(base, args, depth, f)
	}
	g.destructive(base, args, depth, f)
	if w, ok := wrappers[base]; ok {
		return w(g, base, args, depth, f)
	}
	if s, ok := readOnly[base]; ok {
		s.check(g, base, args, depth, f)
		return base
	}
	if why, ok := knownPrompts[base]; ok {
		f.prompt(High, base+" "+why)
		return base
	}
	f.prompt(High, "unknown command "+strconv.Quote(base))
	return base
}

// optSpec describes a wrapper's options so that the wrapped command can be
// found.
type optSpec struct {
	value map[string]bool // options taking a value: "-s", "--signal"
	flag  map[string]bool // options without one
}

func opts(value, flag string) optSpec {
	o := optSpec{value: map[string]bool{}, flag: map[string]bool{}}
	for _, v := range strings.Fields(value) {
		o.value[v] = true
	}
	for _, v := range strings.Fields(flag) {
		o.flag[v] = true
	}
	return o
}

// skip returns the index of the first operand in args, and false when an
// option is not known (the wrapped command cannot be found for sure).
func (o optSpec) skip(args []string) (int, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return i + 1, true
		case a == "-" || !strings.HasPrefix(a, "-"):
			return i, true
		case strings.HasPrefix(a, "--"):
			name, _, hasVal := strings.Cut(a, "=")
			if o.flag[name] {
				continue
			}
			if o.value[name] {
				if !hasVal {
					i++
				}
				continue
			}
			return i, false
		case o.flag[a]:
			continue
		case o.value[a[:2]]:
			if len(a) == 2 {
				i++
			}
			continue
		}
		// A cluster, as getopt reads it: flags, and at most one option
		// taking a value, whose value is the rest of the cluster or, when
		// it ends the cluster, the next argument (xargs -tP 0, timeout
		// -vs KILL 5).
		for k, c := range a[1:] {
			if o.flag["-"+string(c)] {
				continue
			}
			if !o.value["-"+string(c)] {
				return i, false
			}
			if k+2 == len(a) {
				i++
			}
			break
		}
	}
	return len(args), true
}

// hasOpt reports whether args (up to the first operand) hold one of names,
// alone, with an attached value, or inside a short-option cluster.
func hasOpt(args []string, names ...string) bool {
	for _, a := range args {
		if a == "--" || !strings.HasPrefix(a, "-") || a == "-" {
			return false
		}
		for _, n := range names {
			if optMatches(a, n) {
				return true
			}
		}
	}
	return false
}

// optMatches reports whether the argument a is the option n: "--name",
// "--name=v", an unambiguous-looking abbreviation "--na" (GNU getopt and
// git accept those), or a short "-x" alone, with a value, or in a cluster.
func optMatches(a, n string) bool {
	if strings.HasPrefix(n, "--") {
		if !strings.HasPrefix(a, "--") {
			return false
		}
		given, _, _ := strings.Cut(a, "=")
		return given == n || (len(given) > 3 && strings.HasPrefix(n, given))
	}
	if strings.HasPrefix(a, "--") || len(n) != 2 {
		return a == n
	}
	return strings.HasPrefix(a, "-") && strings.IndexByte(a[1:], n[1]) >= 0
}
