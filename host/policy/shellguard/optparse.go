package shellguard

import (
	"sort"
	"strconv"
	"strings"
)

// This file is the guard's one option parser: it reads an argument vector
// the way the program will (GNU getopt_long for GNU tools, the exact-name
// parsers of ripgrep, jq and tree), so that an option is judged by what it
// is and not by how it happens to be spelt.

// argMode says whether an option takes an argument.
type argMode uint8

const (
	argNone argMode = iota
	// argRequired: attached (-k2, --key=2) or the next word (-k 2,
	// --key 2), whatever that word looks like.
	argRequired
	// argOptional attaches only: -c3 or --context=3; a separate word is
	// an operand.
	argOptional
)

// effect says what an option, or the argument it takes, does.
type effect uint8

const (
	// effPlain: a read-only switch or a plain value.
	effPlain effect = iota
	// effReadFile: the argument names a file the program reads.
	effReadFile
	// effFileList: the argument names a file that lists further files to
	// read, which the guard cannot see.
	effFileList
	// effPattern: the argument is the pattern or program, so that every
	// operand is a path (grep -e, jq --from-file's sibling).
	effPattern
	// effPatternFile: the argument is a file of patterns (read), and every
	// operand is a path (grep -f).
	effPatternFile
	// effRecurse: the program reads whole trees under its path operands.
	effRecurse
	// effWrite, effExec, effSystem and effUnsafe are never allowed; they
	// are in the tables so that abbreviations resolve as the program
	// resolves them and the reason can name what the option does.
	effWrite
	effExec
	effSystem
	effUnsafe
)

// option is one entry of a program's option table.
type option struct {
	short byte     // 0: no short form
	longs []string // long names without "--"; aliases share one entry
	arg   argMode
	// nargs is how many words a required argument takes (jq --arg NAME
	// VALUE takes two); 0 means 1.
	nargs  int
	effect effect
	// why says what an option with a refusing effect does.
	why string
}

// spelling is how the option is named in reasons: its first long name, or
// its short letter.
func (o *option) spelling() string {
	if len(o.longs) > 0 {
		if o.short != 0 {
			return "-" + string(o.short) + "/--" + o.longs[0]
		}
		return "--" + o.longs[0]
	}
	return "-" + string(o.short)
}

// grammar is how a program reads its options.
type grammar struct {
	// permute: options may follow operands, until "--" (GNU getopt).
	permute bool
	// abbrev: a unique prefix of a long option is that option (GNU
	// getopt_long, argp).
	abbrev bool
	// shortNext: a short option that takes an argument takes the next
	// word even inside a cluster (tree's parser); never attached.
	shortNext bool
	// negativeNumbers: a word like -5 or -1.5 is an operand (seq).
	negativeNumbers bool
	// exactLongWords: a long option is the whole word; --name=value is
	// not a form the program knows (jq).
	exactLongWords bool
}

var gnu = grammar{permute: true, abbrev: true}

// optTable is a program's whole option table, looked up by the parser.
type optTable struct {
	grammar grammar
	short   [128]*option
	long    map[string]*option
	names   []string // long names, sorted, for prefix search
}

func newOptTable(g grammar, opts []*option) *optTable {
	t := &optTable{grammar: g, long: map[string]*option{}}
	for _, o := range opts {
		if o.short != 0 {
			if o.short >= 128 || t.short[o.short] != nil {
				panic("shellguard: duplicate or bad short option -" + string(o.short))
			}
			t.short[o.short] = o
		}
		for _, l := range o.longs {
			if _, dup := t.long[l]; dup {
				panic("shellguard: duplicate long option --" + l)
			}
			t.long[l] = o
			t.names = append(t.names, l)
		}
	}
	sort.Strings(t.names)
	return t
}

// optUse is one option as found in the arguments.
type optUse struct {
	opt *option
	// token is the word as written, for reasons.
	token  string
	values []string
}

// value is the option's (last) argument, "" when none.
func (u optUse) value() string {
	if len(u.values) == 0 {
		return ""
	}
	return u.values[len(u.values)-1]
}

// parsedArgs is an argument vector read as its program reads it.
type parsedArgs struct {
	uses     []optUse
	operands []string
	// problem is why the vector could not be read (an unknown or
	// ambiguous option, a missing argument); the program would refuse it
	// or do something the guard does not know.
	problem string
}

// parse reads args with t's grammar. It stops at the first problem.
func (t *optTable) parse(args []string) parsedArgs {
	var p parsedArgs
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			p.operands = append(p.operands, args[i+1:]...)
			return p
		case len(a) < 2 || a[0] != '-' || (t.grammar.negativeNumbers && isNumber(a[1:])):
			if !t.grammar.permute {
				p.operands = append(p.operands, args[i:]...)
				return p
			}
			p.operands = append(p.operands, a)
		case a[1] == '-':
			i = t.parseLong(args, i, &p)
		default:
			i = t.parseShort(args, i, &p)
		}
		if p.problem != "" {
			return p
		}
	}
	return p
}

// parseLong reads args[i], a "--name[=value]" word, and returns the index
// of the last word it used.
func (t *optTable) parseLong(args []string, i int, p *parsedArgs) int {
	a := args[i]
	name, value, attached := strings.Cut(a[2:], "=")
	if t.grammar.exactLongWords {
		name, value, attached = a[2:], "", false
	}
	o, problem := t.lookupLong(name)
	if o == nil {
		p.problem = problem
		return i
	}
	u := optUse{opt: o, token: a}
	switch o.arg {
	case argNone:
		if attached {
			p.problem = "option --" + name + " takes no argument: " + strconv.Quote(a)
			return i
		}
	case argOptional:
		if attached {
			u.values = []string{value}
		}
	case argRequired:
		need := max(o.nargs, 1)
		if attached {
			u.values = append(u.values, value)
			need--
		}
		if i+need >= len(args) {
			p.problem = "option --" + name + " needs an argument"
			return i
		}
		if len(u.values) == 0 {
			u.values = args[i+1 : i+1+need : i+1+need] // no copy: the words themselves
		} else {
			u.values = append(u.values, args[i+1:i+1+need]...)
		}
		i += need
	}
	p.add(u, len(args))
	return i
}

// lookupLong finds a long option by its name or, where the grammar allows,
// a unique prefix of it; aliases of one option are not ambiguous.
func (t *optTable) lookupLong(name string) (*option, string) {
	if o := t.long[name]; o != nil {
		return o, ""
	}
	if !t.grammar.abbrev || name == "" {
		return nil, "unknown option --" + name
	}
	var found *option
	var matches []string
	for j := sort.SearchStrings(t.names, name); j < len(t.names) && strings.HasPrefix(t.names[j], name); j++ {
		o := t.long[t.names[j]]
		matches = append(matches, "--"+t.names[j])
		if found != nil && found != o {
			return nil, "option --" + name + " is ambiguous (" + strings.Join(matches, ", ") + ", ...)"
		}
		found = o
	}
	if found == nil {
		return nil, "unknown option --" + name
	}
	return found, ""
}

// parseShort reads a cluster of short options, args[i], and returns the
// index of the last word it used.
func (t *optTable) parseShort(args []string, i int, p *parsedArgs) int {
	a := args[i]
	next := i
	for j := 1; j < len(a); j++ {
		c := a[j]
		var o *option
		if c < 128 {
			o = t.short[c]
		}
		if o == nil {
			p.problem = "unknown option -" + string(rune(c)) + " in " + strconv.Quote(a)
			return next
		}
		u := optUse{opt: o, token: a}
		rest := a[j+1:]
		switch {
		case o.arg == argNone:
		case o.arg == argOptional:
			if rest != "" && !t.grammar.shortNext {
				u.values = []string{rest}
			}
			j = len(a)
		case t.grammar.shortNext || rest == "":
			need := max(o.nargs, 1)
			if next+need >= len(args) {
				p.problem = "option -" + string(c) + " needs an argument"
				return next
			}
			u.values = args[next+1 : next+1+need : next+1+need]
			next += need
			if !t.grammar.shortNext {
				j = len(a)
			}
		default:
			u.values = []string{rest}
			if need := max(o.nargs, 1) - 1; need > 0 {
				if next+need >= len(args) {
					p.problem = "option -" + string(c) + " needs an argument"
					return next
				}
				u.values = append(u.values, args[next+1:next+1+need]...)
				next += need
			}
			j = len(a)
		}
		p.add(u, len(args))
	}
	return next
}

// add records an option; the first one sizes the list for all the words,
// so that it grows once.
func (p *parsedArgs) add(u optUse, words int) {
	if p.uses == nil {
		p.uses = make([]optUse, 0, words)
	}
	p.uses = append(p.uses, u)
}

// isNumber reports a decimal number such as 5 or 1.5.
func isNumber(s string) bool {
	if s == "" {
		return false
	}
	dot := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] >= '0' && s[i] <= '9':
		case s[i] == '.' && !dot:
			dot = true
		default:
			return false
		}
	}
	return true
}
