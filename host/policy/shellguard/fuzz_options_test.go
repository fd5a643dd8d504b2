package shellguard

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzAllowedOptions: whatever the guard allows has only options of its
// program's table, each read-only. Every allowed simple command is read
// again, once with the engine (no problem, no refusing effect, no file
// list, no output operand, no clock or host name set) and once with a
// naive reading of the long options that shares no code with the engine
// (each --name must resolve, by exact name or unique prefix, to an option
// that is read-only).
func FuzzAllowedOptions(f *testing.F) {
	for _, r := range table {
		f.Add(r.cmd)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		if Check(cmd, tableOptions).Decision != Allow {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil {
			t.Fatalf("Check(%q) allows input that does not parse: %v", cmd, err)
		}
		syntax.Walk(file, func(n syntax.Node) bool {
			call, ok := n.(*syntax.CallExpr)
			if !ok {
				return true
			}
			argv := make([]string, len(call.Args))
			for i, w := range call.Args {
				argv[i] = readWord(w).text
			}
			checkAllowedArgv(t, cmd, argv)
			return true
		})
	})
}

// checkAllowedArgv finds the read-only program in an allowed argv (after
// any wrappers) and checks its arguments.
func checkAllowedArgv(t *testing.T, cmd string, argv []string) {
	j := 0
	for j < len(argv) && wrappers[argv[j]] != nil {
		j++
		for j < len(argv) && (strings.HasPrefix(argv[j], "-") || isNumber(argv[j])) {
			j++ // a wrapper's options and durations (timeout 10, nice -n 5)
		}
	}
	if j >= len(argv) {
		return
	}
	s, ok := readOnly[argv[j]]
	if !ok || s.custom != nil || s.operands == operandsText {
		return
	}
	name, args := argv[j], argv[j+1:]
	if s.obsolete != nil && len(args) > 0 && s.obsolete.MatchString(args[0]) {
		args = args[1:]
	}
	p := s.opts.parse(args)
	if p.problem != "" {
		t.Fatalf("Check(%q) allows %s, whose arguments the engine cannot read: %s", cmd, name, p.problem)
	}
	for _, u := range p.uses {
		if u.opt.effect.refuses() || u.opt.effect == effFileList {
			t.Fatalf("Check(%q) allows %s %s, which %s", cmd, name, u.token, u.opt.reason())
		}
	}
	switch {
	case s.operands == operandsInOut && len(p.operands) > 1:
		t.Fatalf("Check(%q) allows %s with an output operand %q", cmd, name, p.operands[1])
	case name == "hostname" && len(p.operands) > 0:
		t.Fatalf("Check(%q) allows hostname to set the name", cmd)
	case name == "date":
		for _, op := range p.operands {
			if !strings.HasPrefix(op, "+") {
				t.Fatalf("Check(%q) allows date to set the clock with %q", cmd, op)
			}
		}
	}
	naiveLongOptions(t, cmd, name, s.opts, args)
}

// naiveLongOptions resolves each --name word before "--" by a linear scan
// of the table, without the engine.
func naiveLongOptions(t *testing.T, cmd, name string, tab *optTable, args []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return
		}
		if !strings.HasPrefix(a, "--") {
			continue
		}
		given, _, _ := strings.Cut(a[2:], "=")
		var hits []*option
		for long, o := range tab.long {
			if long == given {
				hits = []*option{o}
				break
			}
			if tab.grammar.abbrev && strings.HasPrefix(long, given) && !containsOption(hits, o) {
				hits = append(hits, o)
			}
		}
		if len(hits) != 1 {
			t.Fatalf("Check(%q) allows %s %s, which names %d options", cmd, name, a, len(hits))
		}
		if hits[0].effect.refuses() {
			t.Fatalf("Check(%q) allows %s %s, which %s", cmd, name, a, hits[0].reason())
		}
		if hits[0].arg == argRequired && !strings.Contains(a, "=") {
			i += max(hits[0].nargs, 1)
		}
	}
}

func containsOption(list []*option, o *option) bool {
	for _, x := range list {
		if x == o {
			return true
		}
	}
	return false
}
