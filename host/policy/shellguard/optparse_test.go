package shellguard

import (
	"slices"
	"strings"
	"testing"
)

// engineTable exercises every form of the engine: flags, required and
// optional arguments, two-word arguments, aliases and a prefix shared by
// two options.
var engineTable = options(gnu, `a b/bravo k/key= c/context? /color|colour? /column /pair=2 o/output=!w`, nil)

func TestOptionParser(t *testing.T) {
	cases := []struct {
		args     string
		uses     string // option spellings and values, "-k=2 --context"
		operands string
		problem  string // a substring of the problem, "" for none
	}{
		{args: "-ab x", uses: "-a -b/--bravo", operands: "x"},
		{args: "-k2 x", uses: "-k/--key=2", operands: "x"},
		{args: "-k 2 x", uses: "-k/--key=2", operands: "x"},
		{args: "-ak2 x", uses: "-a -k/--key=2", operands: "x"},
		{args: "-ak 2 x", uses: "-a -k/--key=2", operands: "x"},
		{args: "-k -a x", uses: "-k/--key=-a", operands: "x"}, // a required value is the next word, whatever it is
		{args: "--key=2 x", uses: "-k/--key=2", operands: "x"},
		{args: "--key 2 x", uses: "-k/--key=2", operands: "x"},
		{args: "--ke=2 x", uses: "-k/--key=2", operands: "x"},
		{args: "--k 2 x", uses: "-k/--key=2", operands: "x"},
		{args: "--br x", uses: "-b/--bravo", operands: "x"},
		{args: "-c x", uses: "-c/--context", operands: "x"},
		{args: "-c3 x", uses: "-c/--context=3", operands: "x"},
		{args: "--context 3 x", uses: "-c/--context", operands: "3 x"}, // optional: only with =
		{args: "--context=3 x", uses: "-c/--context=3", operands: "x"},
		{args: "--colo=always", uses: "--color=always"},
		{args: "--colou", uses: "--color"},
		{args: "--col", problem: "ambiguous"}, // --color and --column
		{args: "--co", problem: "ambiguous"},
		{args: "--pair A B x", uses: "--pair=B", operands: "x"},
		{args: "--pair=A B x", uses: "--pair=B", operands: "x"},
		{args: "--pair A", problem: "needs an argument"},
		{args: "x -a y", uses: "-a", operands: "x y"}, // permutation
		{args: "x -- -a y", operands: "x -a y"},
		{args: "-- -- x", operands: "-- x"},
		{args: "- -a", uses: "-a", operands: "-"},
		{args: "-o out x", uses: "-o/--output=out", operands: "x"},
		{args: "x --ou=out", uses: "-o/--output=out", operands: "x"},
		{args: "-ao", problem: "needs an argument"},
		{args: "-k", problem: "needs an argument"},
		{args: "--key", problem: "needs an argument"},
		{args: "-z", problem: "unknown option -z"},
		{args: "-az", problem: "unknown option -z"},
		{args: "--zulu", problem: "unknown option --zulu"},
		{args: "--bravo=1", problem: "takes no argument"},
		{args: "--", operands: ""},
		{args: "-é", problem: "unknown option"},
	}
	for _, c := range cases {
		p := engineTable.parse(strings.Fields(c.args))
		if c.problem != "" {
			if !strings.Contains(p.problem, c.problem) {
				t.Errorf("parse(%q) problem = %q, want %q", c.args, p.problem, c.problem)
			}
			continue
		}
		if p.problem != "" {
			t.Errorf("parse(%q) problem = %q", c.args, p.problem)
			continue
		}
		var uses []string
		for _, u := range p.uses {
			s := u.opt.spelling()
			if len(u.values) > 0 {
				s += "=" + u.value()
			}
			uses = append(uses, s)
		}
		if got := strings.Join(uses, " "); got != c.uses {
			t.Errorf("parse(%q) uses = %q, want %q", c.args, got, c.uses)
		}
		if got := strings.Join(p.operands, " "); got != c.operands {
			t.Errorf("parse(%q) operands = %q, want %q", c.args, got, c.operands)
		}
	}
}

// TestGrammars: the non-GNU readings. ripgrep and jq take no
// abbreviations, jq no --name=value, tree's short options take the next
// word, the shell builtins stop at the first operand, seq reads -5 as a
// number.
func TestGrammars(t *testing.T) {
	cases := []struct {
		tab      *optTable
		args     string
		operands string
		problem  string
	}{
		{tab: rgOptions, args: "--pr=sh foo", problem: "unknown option --pr"},
		{tab: rgOptions, args: "--hidd foo", problem: "unknown option --hidd"},
		{tab: rgOptions, args: "foo -i src", operands: "foo src"},
		{tab: jqOptions, args: "--indent=2 .", problem: "unknown option --indent=2"},
		{tab: jqOptions, args: "--indent 2 . f", operands: ". f"},
		{tab: jqOptions, args: "--arg a b . f", operands: ". f"},
		{tab: treeOptions, args: "-aL 2 src", operands: "src"},
		{tab: treeOptions, args: "-La 2 src", operands: "src"}, // -L takes the next word, -a is a flag
		{tab: printfOptions, args: "%s -v", operands: "%s -v"},
		{tab: printfOptions, args: "-- -v", operands: "-v"},
		{tab: seqOptions, args: "-5 5", operands: "-5 5"},
		{tab: seqOptions, args: "-w -1.5 2", operands: "-1.5 2"},
		{tab: trOptions, args: "a -d", operands: "a -d"},
	}
	for _, c := range cases {
		p := c.tab.parse(strings.Fields(c.args))
		if c.problem != "" {
			if !strings.Contains(p.problem, c.problem) {
				t.Errorf("parse(%q) problem = %q, want %q", c.args, p.problem, c.problem)
			}
			continue
		}
		if p.problem != "" || strings.Join(p.operands, " ") != c.operands {
			t.Errorf("parse(%q) = operands %q problem %q, want operands %q", c.args, p.operands, p.problem, c.operands)
		}
	}
}

// TestRefusedOptionsAreNamed: the famous writers and runners are in their
// tables with a refusing effect, and the verdict names them.
func TestRefusedOptionsAreNamed(t *testing.T) {
	for _, c := range []struct{ cmd, reason string }{
		{"sort --ou=x f", "--output"},
		{"sort --compress-p=sh f", "--compress-program"},
		{"sort -T d f", "--temporary-directory"},
		{"tree -o x", "-o"},
		{"file -C -m m", "--compile"},
		{"rg --pre sh x", "--pre"},
		{"rg --search-zip x", "--search-zip"},
		{"rg --hostname-bin=x y", "--hostname-bin"},
		{"diff --pag a b", "--paginate"},
		{"date --se=x", "--set"},
		{"printf -v x y", "-v"},
		{"man --pager=x ls", "--pager"},
		{"sort --s f", "ambiguous"},
		{"cat --zzz f", "--zzz"},
	} {
		v := Check(c.cmd, tableOptions)
		if v.Decision == Allow || !slices.ContainsFunc(v.Reasons, func(r string) bool { return strings.Contains(r, c.reason) }) {
			t.Errorf("Check(%q) = %v %q, want a prompt naming %s", c.cmd, v.Decision, v.Reasons, c.reason)
		}
	}
}

// TestStateBuiltinsSayWhy: every builtin that changes the shell prompts
// with that reason, directly and behind builtin and command (an unknown
// command would prompt too, but must not be how these are caught).
func TestStateBuiltinsSayWhy(t *testing.T) {
	for name := range stateBuiltins {
		for _, cmd := range []string{name + " x", "builtin " + name + " x", "command " + name + " x"} {
			v := Check(cmd, tableOptions)
			if v.Decision != Prompt || !slices.ContainsFunc(v.Reasons, func(r string) bool { return strings.Contains(r, "changes the shell for later commands") }) {
				t.Errorf("Check(%q) = %v %q, want a prompt saying it changes the shell", cmd, v.Decision, v.Reasons)
			}
		}
	}
}

// TestTreeReadingOptions: the spellings that make a command read whole
// trees set the reading that sends its paths to readTree (which
// g-paths-git's paths.go judges by what the tree holds).
func TestTreeReadingOptions(t *testing.T) {
	g := newGuard(tableOptions)
	for _, c := range []struct {
		cmd  string
		tree bool
	}{
		{"grep -r foo src", true}, {"grep -R foo", true}, {"grep --recursive foo", true}, {"grep --rec foo", true},
		{"grep --dereference-r foo", true}, {"grep -d recurse foo", true}, {"grep -drec foo", true},
		{"grep --directories=recurse foo", true}, {"grep --dir=re foo", true}, {"grep -d r foo", true},
		{"rg foo", true}, {"rg --files", true}, {"rg -uu foo src", true}, {"diff -r a b", true}, {"diff --recursive a b", true},
		{"grep foo f", false}, {"grep -d skip foo f", false}, {"grep -d read foo f", false}, {"grep -ds foo f", false},
		{"diff a b", false}, {"grep -e -r f", false},
	} {
		argv := strings.Fields(c.cmd)
		s := readOnly[argv[0]]
		r := argsRead{parsedArgs: s.opts.parse(argv[1:])}
		var f finding
		for _, u := range r.uses {
			g.judgeOption(argv[0], u, &r, &f)
		}
		if s.post != nil {
			s.post(g, argv[0], &r, &f)
		}
		if r.problem != "" || r.recursive != c.tree {
			t.Errorf("%q: tree reading = %v (problem %q), want %v", c.cmd, r.recursive, r.problem, c.tree)
		}
	}
}
