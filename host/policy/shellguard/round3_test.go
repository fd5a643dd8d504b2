package shellguard

import (
	"strings"
	"testing"
)

// TestInheritedDescriptorAsks: a redirection that reads or writes a
// descriptor above 2 uses one the command did not open itself (one its
// launcher or the operator's shell left open): asked about, never
// allowed unasked. The standard streams stay allowed.
func TestInheritedDescriptorAsks(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		want Decision
	}{
		{"echo hi >&5", Prompt},
		{"echo hi 1>&9", Prompt},
		{"cat <&3", Prompt},
		{"cat 0<&7", Prompt},
		{"cat /dev/fd/3", Prompt},
		{"cat /proc/self/fd/4", Prompt},
		{"cat < /dev/fd/5", Prompt},
		{"echo hi > /dev/fd/6", Prompt},
		{"echo hi 2>&1", Allow},
		{"echo hi >&2", Allow},
		{"cat <&0", Allow},
		{"echo hi > /dev/null 2>&1", Allow},
		{"echo hi >&-", Allow}, // closes a stream
		{"cat <&-", Allow},
		{"echo hi >&out.txt", Prompt}, // >& a file writes it
	} {
		if v := Check(c.cmd, tableOptions); v.Decision != c.want {
			t.Errorf("Check(%q) = %v %q, want %v", c.cmd, v.Decision, v.Reasons, c.want)
		}
	}
	// Each digit is a descriptor's: 0 and 9 at the ends of the range.
	for _, cmd := range []string{"echo hi 1>&9", "cat <&90", "echo hi >&10"} {
		if v := Check(cmd, tableOptions); !strings.Contains(strings.Join(v.Reasons, "\n"), "uses descriptor") {
			t.Errorf("Check(%q) = %v %q, want it asked as an inherited descriptor", cmd, v.Decision, v.Reasons)
		}
	}
}

// TestForkBombsBlocked: the common spellings of a fork bomb are refused
// before anyone is asked.
func TestForkBombsBlocked(t *testing.T) {
	for _, cmd := range []string{
		":(){ :|:& };:",
		"bomb(){ bomb | bomb & }; bomb",
		"f() { f & f; }; f",
		`perl -e 'fork while 1'`,
		`perl -e 'fork while fork'`,
		`perl -e 'while(1){fork}'`,
		`python3 -c 'import os
while True: os.fork()'`,
		`python3 -c "import os; [os.fork() for _ in iter(int, 1)]"`,
		"while true; do sh & done",
		"while :; do bash -c : & done",
		"until false; do sleep 1 & done",
		"for ((;;)); do sh & done",
		`sh -c '$0 & $0' sh`,
		`bash -c '$0 | $0 &' bash`,
		`sh -c '"$0" & "$0" &' /bin/sh`,
		"yes | xargs -P 0 -n 1 sh -c 'sleep 100'",
		"seq 100000 | xargs -P0 sleep",
		"seq 9 | xargs --max-procs=0 sleep",
		"seq 9 | xargs --max-procs 0 sleep",
		// -P at the end of a cluster of flags, its value the next word or
		// attached (getopt: xargs -tP 0 is xargs -t -P 0)
		"seq 9 | xargs -tP 0 sleep",
		"seq 9 | xargs -0P0 sleep",
		"seq 9 | xargs -rtP 2000 sleep",
		"seq 9 | xargs -P 1025 sleep",
		// options the guard's skip table does not know, which xargs
		// reads before -P: a long option's unique prefix, -i's attached
		// replace string (the -P after them was missed)
		"seq 9 | xargs --max-p=0 sleep",
		"seq 9 | xargs --max-pr 0 sleep",
		"seq 9 | xargs -i{} -P0 sleep {}",
		"seq 9 | xargs -l1 -P 0 sleep",
		"seq 9 | xargs -e -P0 sleep",
		"while true; do x=1 & done", // an assignment backgrounded: a subshell a turn
	} {
		if v := Check(cmd, tableOptions); v.Decision != Block {
			t.Errorf("Check(%q) = %v %q, want block", cmd, v.Decision, v.Reasons)
		}
	}
	// Ordinary loops and parallelism stay as they were.
	for _, cmd := range []string{
		"for f in a b; do echo $f; done",
		"seq 3 | xargs -P 4 -n 1 echo",
		"seq 3 | xargs -P 1024 -n 1 echo", // the bound itself
		// -P0 attached to -i, -e or -l is their value, not -P; and the
		// command's own -P is not xargs's
		"seq 3 | xargs -iP0 echo P0",
		"seq 3 | xargs -eP0 echo",
		"seq 3 | xargs -n 1 sort -P 0",
	} {
		if v := Check(cmd, tableOptions); v.Decision == Block {
			t.Errorf("Check(%q) = block %q; an ordinary command", cmd, v.Reasons)
		}
	}
}

// TestFileNamingOptionsOfSensitivePaths: the options of the guard's
// tables that name a file to read are path-checked like operands: each
// reads a sensitive file here, which needs approval (an independent
// mutation run found these rows missing: dropping the option's @r
// survived the suite).
func TestFileNamingOptionsOfSensitivePaths(t *testing.T) {
	for _, cmd := range []string{
		"jq --argfile v .env . f.json",
		"jq -n --argfile v .env",
		"date -f .env",
		"date --file=.env",
		"tree --infofile .env",
		"tree --infofile=.env src",
		"grep -r --exclude-from=.env foo src",
		"grep -r --exclude-from .env foo src",
		"du -sh --exclude-from=.env .",
		"du -X .env .",
		"diff -r --exclude-from=.env a b",
	} {
		if v := Check(cmd, tableOptions); v.Decision == Allow {
			t.Errorf("Check(%q) = allow; an option naming a sensitive file must be asked about", cmd)
		}
	}
}
