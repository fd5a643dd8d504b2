package shellguard

import "strings"

// payloadOpts is a destructive program's options as its getopt_long reads
// them, so that a payload is seen in every spelling the program accepts:
// combined short flags (-fr), a long option by any unique prefix (--rec),
// options after operands (GNU permutes), "--" ending them.
type payloadOpts struct {
	// short maps an option letter to its canonical name; a name ending in
	// ':' takes a value (attached or the next argument), one ending in '?'
	// an optional value, only attached (GNU xargs -i{}: the rest of the
	// word, never the next one).
	short map[byte]string
	// long maps a long option to its canonical name, with the same ':'
	// suffix for a required value and '?' for an optional one (only with =).
	long map[string]string
	// inOrder: options end at the first operand (env, xargs, POSIX tools).
	inOrder bool
}

// payloadArgs is what payloadOpts.parse read.
type payloadArgs struct {
	opts     []optValue // in the order given
	operands []string
	rest     int // index of the first argument not read as an option, when inOrder
}

// optValue is one option given: its canonical name and value ("" for a
// flag). A slice, not a map: commands give few options.
type optValue struct{ name, value string }

func (a payloadArgs) has(names ...string) bool {
	for _, o := range a.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

func (a payloadArgs) values(name string) []string {
	var out []string
	for _, o := range a.opts {
		if o.name == name {
			out = append(out, o.value)
		}
	}
	return out
}

// newPayloadOpts builds a table from "letter=name" short entries ("r=recursive",
// "s=signal:") and long entries ("recursive", "signal:", "preserve-root?",
// "alias=name:" for a long option that means another).
func newPayloadOpts(short, long string, inOrder bool) payloadOpts {
	o := payloadOpts{short: map[byte]string{}, long: map[string]string{}, inOrder: inOrder}
	for _, e := range strings.Fields(short) {
		letter, name, ok := strings.Cut(e, "=")
		if !ok {
			name = letter
			letter = strings.TrimRight(letter, ":?")
		}
		o.short[letter[0]] = name
	}
	for _, e := range strings.Fields(long) {
		opt, name, ok := strings.Cut(e, "=")
		if !ok {
			name = opt
		}
		opt = strings.TrimRight(opt, ":?")
		o.long[opt] = name
	}
	return o
}

// lookupLong resolves a long option by its exact name or a unique prefix.
func (o payloadOpts) lookupLong(given string) (string, bool) {
	if n, ok := o.long[given]; ok {
		return n, true
	}
	found := ""
	for opt, n := range o.long {
		if strings.HasPrefix(opt, given) {
			if found != "" && found != n {
				return "", false // ambiguous: getopt refuses it
			}
			found = n
		}
	}
	return found, found != ""
}

// parse reads args. Unknown options are skipped: the program would refuse
// them, and skipping keeps the payload visible in the rest.
func (o payloadOpts) parse(args []string) payloadArgs {
	out := payloadArgs{rest: len(args)}
	add := func(name, value string) {
		out.opts = append(out.opts, optValue{strings.TrimRight(name, ":?"), value})
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			out.operands = append(out.operands, args[i+1:]...)
			if out.rest == len(args) {
				out.rest = i + 1
			}
			return out
		case a == "-" || !strings.HasPrefix(a, "-"):
			if o.inOrder {
				out.rest = i
				out.operands = append(out.operands, args[i:]...)
				return out
			}
			out.operands = append(out.operands, a)
		case strings.HasPrefix(a, "--"):
			given, value, hasValue := strings.Cut(a[2:], "=")
			name, ok := o.lookupLong(given)
			if !ok {
				continue
			}
			if strings.HasSuffix(name, ":") && !hasValue && i+1 < len(args) {
				i++
				value = args[i]
			}
			add(name, value)
		default:
			for j := 1; j < len(a); j++ {
				name, ok := o.short[a[j]]
				if !ok {
					continue
				}
				if strings.HasSuffix(name, "?") {
					add(name, a[j+1:])
					break
				}
				if strings.HasSuffix(name, ":") {
					value := a[j+1:]
					if value == "" && i+1 < len(args) {
						i++
						value = args[i]
					}
					add(name, value)
					break
				}
				add(name, "")
			}
		}
	}
	return out
}
