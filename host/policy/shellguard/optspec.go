package shellguard

import (
	"strings"
)

// options builds a program's option table from a compact spec, one entry
// per field:
//
//	n            a short option -n without an argument
//	n/number     -n and --number, the same option
//	/number      a long option only
//	/color|colour  aliases of one option (not ambiguous with each other)
//	k/key=       a required argument (attached or the next word)
//	/color?      an optional argument (attached only: --color=never)
//	/arg=2       a required argument of two words (jq --arg NAME VALUE)
//
// followed by what it does (default: a read-only switch or plain value):
//
//	@r  the argument is a file read       @l  a file listing files to read
//	@p  the argument is the pattern       @f  a file of patterns (read)
//	@R  path operands are read as trees
//	!w  writes   !x  runs a program   !s  changes the system   !u  unsafe
//
// why gives the reason for !u entries (required) and may replace the
// generic one for !w, !x and !s; it is keyed by the first long name, or
// the short letter.
func options(g grammar, spec string, why map[string]string) *optTable {
	var opts []*option
	for _, field := range strings.Fields(spec) {
		opts = append(opts, parseOptionSpec(field, why))
	}
	return newOptTable(g, opts)
}

func parseOptionSpec(field string, why map[string]string) *option {
	o := &option{}
	body := field
	if i := strings.IndexAny(body, "@!"); i >= 0 {
		o.effect = effectOf(body[i:], field)
		body = body[:i]
	}
	switch {
	case strings.HasSuffix(body, "=2"):
		o.arg, o.nargs, body = argRequired, 2, strings.TrimSuffix(body, "=2")
	case strings.HasSuffix(body, "="):
		o.arg, body = argRequired, strings.TrimSuffix(body, "=")
	case strings.HasSuffix(body, "?"):
		o.arg, body = argOptional, strings.TrimSuffix(body, "?")
	}
	short, long, hasLong := strings.Cut(body, "/")
	switch {
	case len(short) == 1:
		o.short = short[0]
	case short != "":
		panic("shellguard: bad option spec " + field)
	}
	if hasLong {
		o.longs = strings.Split(long, "|")
		for _, l := range o.longs {
			if l == "" {
				panic("shellguard: bad option spec " + field)
			}
		}
	}
	if o.short == 0 && len(o.longs) == 0 {
		panic("shellguard: bad option spec " + field)
	}
	key := string(o.short)
	if len(o.longs) > 0 {
		key = o.longs[0]
	}
	o.why = why[key]
	if o.effect == effUnsafe && o.why == "" {
		panic("shellguard: option spec " + field + " needs a reason")
	}
	return o
}

func effectOf(code, field string) effect {
	switch code {
	case "@r":
		return effReadFile
	case "@l":
		return effFileList
	case "@p":
		return effPattern
	case "@f":
		return effPatternFile
	case "@R":
		return effRecurse
	case "!w":
		return effWrite
	case "!x":
		return effExec
	case "!s":
		return effSystem
	case "!u":
		return effUnsafe
	}
	panic("shellguard: bad effect in option spec " + field)
}

// refuses reports an effect that is never allowed.
func (e effect) refuses() bool { return e >= effWrite }

// reason is why an option with a refusing effect needs approval.
func (o *option) reason() string {
	if o.why != "" {
		return o.why
	}
	switch o.effect {
	case effWrite:
		return "writes a file"
	case effExec:
		return "runs another program"
	case effSystem:
		return "changes the system"
	}
	return "is not read-only"
}
