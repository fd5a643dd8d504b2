package shellguard

import (
	"slices"
	"testing"
)

// TestPayloadLongOptionPrefixes: a long option is found by a unique
// prefix, and by one that several spellings of the same option share; a
// prefix of two different options is ambiguous, as getopt_long finds it
// (the program refuses it, so it names nothing).
func TestPayloadLongOptionPrefixes(t *testing.T) {
	o := newPayloadOpts("", "recursive recurse=recursive remove-all max-procs: max-args:", false)
	for _, tc := range []struct {
		given, want string
		ok          bool
	}{
		{"recursive", "recursive", true},
		{"recurs", "recursive", true}, // two spellings of one option
		{"rem", "remove-all", true},
		{"re", "", false},  // recursive or remove-all
		{"max", "", false}, // max-procs or max-args
		{"max-p", "max-procs:", true},
		{"nothing", "", false},
	} {
		name, ok := o.lookupLong(tc.given)
		if name != tc.want || ok != tc.ok {
			t.Errorf("lookupLong(%q) = %q %v, want %q %v", tc.given, name, ok, tc.want, tc.ok)
		}
	}
}

// TestPayloadOptionValueMissingAtTheEnd: an option that takes a value,
// given last with none, is read with an empty value (the program refuses
// it), not past the end of the arguments.
func TestPayloadOptionValueMissingAtTheEnd(t *testing.T) {
	for _, args := range [][]string{{"--max-procs"}, {"-n", "1", "--max-procs"}, {"-P"}, {"--max-p"}} {
		got := xargsGetopt.parse(args)
		if v := got.values("max-procs"); !slices.Equal(v, []string{""}) || len(got.operands) != 0 {
			t.Errorf("parse(%q) = max-procs %q, operands %q; want one empty value and no operand", args, v, got.operands)
		}
	}
	for _, cmd := range []string{"seq 3 | xargs --max-procs", "pkill --signal", "rm --interactive"} {
		if v := Check(cmd, tableOptions); v.Decision == Block {
			t.Errorf("Check(%q) = block %q; an option without its value does nothing", cmd, v.Reasons)
		}
	}
}
