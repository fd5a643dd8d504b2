package shellguard

import (
	"strings"
	"testing"
)

// TestOptionClustersAsGetoptReadsThem: a wrapper's short options in one
// cluster (flags, then at most one option taking a value: the rest of the
// cluster or the next word) find the wrapped command as the options
// written apart do, so the command is judged the same; an option the
// guard does not know in a cluster still asks.
func TestOptionClustersAsGetoptReadsThem(t *testing.T) {
	for _, tc := range []struct{ cluster, apart string }{
		{"timeout -vs KILL 5 ls", "timeout -v -s KILL 5 ls"},
		{"timeout -vsKILL 5 ls", "timeout -v -s KILL 5 ls"},
		{"timeout -vs KILL 5 rm -rf /", "timeout -v -s KILL 5 rm -rf /"},
		{"seq 3 | xargs -tn1 echo", "seq 3 | xargs -t -n 1 echo"},
		{"seq 3 | xargs -0tP 4 echo", "seq 3 | xargs -0 -t -P 4 echo"},
		{"seq 3 | xargs -tP 0 echo", "seq 3 | xargs -t -P 0 echo"},
		{"sudo -Eu root ls", "sudo -E -u root ls"},
		{"watch -tn1 ls", "watch -t -n 1 ls"},
	} {
		c, a := Check(tc.cluster, tableOptions), Check(tc.apart, tableOptions)
		if c.Decision != a.Decision || c.Risk != a.Risk {
			t.Errorf("Check(%q) = %v/%v %q; Check(%q) = %v/%v %q", tc.cluster, c.Decision, c.Risk, c.Reasons, tc.apart, a.Decision, a.Risk, a.Reasons)
		}
		if strings.Contains(strings.Join(c.Reasons, ";"), "does not know") {
			t.Errorf("Check(%q): a known cluster taken for an unknown option: %q", tc.cluster, c.Reasons)
		}
	}
	for _, cmd := range []string{"xargs -tZ echo", "timeout -vZ 5 ls", "seq 3 | xargs -tq echo"} {
		if v := Check(cmd, tableOptions); v.Decision == Allow {
			t.Errorf("Check(%q) = allow %q; a cluster with an unknown option", cmd, v.Reasons)
		}
	}
}

// TestOptionsFoundInEverySpelling: hasOpt finds an option however getopt
// would take it: a long option's unambiguous abbreviation (more than
// "--xy"), with its value attached, and a short option with its value
// attached or inside a cluster.
func TestOptionsFoundInEverySpelling(t *testing.T) {
	for _, cmd := range []string{
		"xargs --arg-file list echo", "xargs --arg-file=list echo", "xargs --arg-f=list echo", "xargs --arg list echo",
		"xargs -a list echo", "xargs -alist echo", "xargs -ta list echo", "xargs -0alist echo",
	} {
		v := Check(cmd, tableOptions)
		if !strings.Contains(strings.Join(v.Reasons, ";"), "reads its arguments from a file") {
			t.Errorf("Check(%q) = %v %q: the argument file not seen", cmd, v.Decision, v.Reasons)
		}
	}
	// "--a" is left to the unknown-option rule (getopt's abbreviations
	// are judged from three letters of the name on: --ar is --arg-file).
	if v := Check("xargs --a list echo", tableOptions); v.Decision == Allow || strings.Contains(strings.Join(v.Reasons, ";"), "reads its arguments from a file") {
		t.Errorf("--a: %v %q", v.Decision, v.Reasons)
	}
}

// TestWrapperEdges: a wrapper with nothing to run is judged by what it
// does alone (nice prints its niceness; timeout 5 asks), an unknown env
// option asks, a deep chain of wrappers is too deep to review, a
// backgrounded assignment is no re-run of $0, and $0 re-run through a
// pipe (not through &&) is a fork bomb.
func TestWrapperEdges(t *testing.T) {
	for _, tc := range []struct {
		cmd    string
		want   Decision
		reason string
	}{
		{"nice", Allow, ""},
		{"timeout 5", Prompt, "without a command to run"},
		{"env --frobnicate ls", Prompt, "env has an option the guard does not know"},
		{"env -Q ls", Prompt, "env has an option the guard does not know"},
		{strings.Repeat("env ", 200) + "ls", Block, "nested too deep"},
		{"x=1 &", Prompt, "runs in the background"},
		{"sh -c '$0 | $0' sh", Block, "fork bomb"},
		{"sh -c '$0 && $0' sh", Prompt, "inline shell code"},
	} {
		v := Check(tc.cmd, tableOptions)
		if v.Decision != tc.want || tc.reason != "" && !strings.Contains(strings.Join(v.Reasons, ";"), tc.reason) {
			t.Errorf("Check(%.40q) = %v %q, want %v naming %q", tc.cmd, v.Decision, v.Reasons, tc.want, tc.reason)
		}
	}
}
