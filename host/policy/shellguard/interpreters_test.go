package shellguard

import (
	"strings"
	"testing"
)

// TestInterpreterCodeReadToTheEnd: every shell call, backtick and tree
// removal in inline code is judged, not only the first.
func TestInterpreterCodeReadToTheEnd(t *testing.T) {
	for _, cmd := range []string{
		`python3 -c 'import os; os.system("ls"); os.system("rm -rf /")'`,
		`python3 -c 'import subprocess; subprocess.run(["ls"]); subprocess.run(["rm", "-rf", "/"])'`,
		"ruby -e '`ls`; `rm -rf /`'",
		`python3 -c 'import shutil; shutil.rmtree("build"); shutil.rmtree("/")'`,
	} {
		if v := Check(cmd, tableOptions); v.Decision != Block {
			t.Errorf("Check(%q) = %v %q, want block", cmd, v.Decision, v.Reasons)
		}
	}
}

// TestInterpreterCallsCountTowardNesting: a command the inline code runs
// is one level deeper, in both of the forms it is read in (an argument
// list, a shell string), so the nesting bound holds through interpreters.
func TestInterpreterCallsCountTowardNesting(t *testing.T) {
	forms := map[string]func(n int) string{
		"argv": func(n int) string {
			return `python3 -c 'import subprocess; subprocess.run([` + strings.Repeat(`"nice", `, n) + `"ls"])'`
		},
		"shell": func(n int) string {
			return `python3 -c 'import os; os.system("` + strings.Repeat("nice ", n) + `ls")'`
		},
	}
	for form, cmd := range forms {
		// python3 is level 0, its call level 1, each nice one more.
		if v := Check(cmd(maxDepth-1), tableOptions); v.Decision == Block {
			t.Errorf("%s: Check(%q) = block %q; within the bound", form, cmd(maxDepth-1), v.Reasons)
		}
		if v := Check(cmd(maxDepth), tableOptions); v.Decision != Block || !strings.Contains(strings.Join(v.Reasons, "\n"), "nested too deep") {
			t.Errorf("%s: Check(%q) = %v %q, want block as nested too deep", form, cmd(maxDepth), v.Decision, v.Reasons)
		}
	}
}

// TestInterpreterCodeLengthBound: code up to maxInterpreterCode bytes is
// read for payloads; longer code is not read and asks.
func TestInterpreterCodeLengthBound(t *testing.T) {
	bomb := "import os\nwhile True: os.fork()\n#"
	at := bomb + strings.Repeat("x", maxInterpreterCode-len(bomb))
	if v := Check("python3 -c '"+at+"'", tableOptions); v.Decision != Block {
		t.Errorf("a fork bomb in %d bytes of code = %v, want block", len(at), v.Decision)
	}
	over := at + "x"
	v := Check("python3 -c '"+over+"'", tableOptions)
	if v.Decision != Prompt || !strings.Contains(strings.Join(v.Reasons, "\n"), "longer than the guard reads") {
		t.Errorf("%d bytes of code = %v %q, want a prompt saying it was not read", len(over), v.Decision, v.Reasons)
	}
}
