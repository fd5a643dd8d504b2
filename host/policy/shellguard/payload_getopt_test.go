package shellguard

import "testing"

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
