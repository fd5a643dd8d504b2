package shellguard

import (
	"strings"
	"testing"
)

// TestCommandSizeBounds: a command of maxStmts statements and one nesting
// brackets maxNesting deep are reviewed (the statements allowed, each
// read-only; the groups ask for themselves); one more statement or one
// more level is not reviewed and asks.
func TestCommandSizeBounds(t *testing.T) {
	reasons := func(cmd string) (Decision, string) {
		v := Check(cmd, tableOptions)
		return v.Decision, strings.Join(v.Reasons, "\n")
	}
	stmts := func(n int) string { return strings.TrimSuffix(strings.Repeat("ls; ", n), "; ") }
	if d, why := reasons(stmts(maxStmts)); d != Allow {
		t.Errorf("%d statements: %v %q, want allow", maxStmts, d, why)
	}
	if d, why := reasons(stmts(maxStmts + 1)); d != Prompt || !strings.Contains(why, "statements and was not reviewed") {
		t.Errorf("%d statements: %v %q, want a prompt saying it was not reviewed", maxStmts+1, d, why)
	}
	// The shortest statements (":;", two bytes each) are counted too.
	if d, why := reasons(strings.Repeat(":;", maxStmts+1)); !strings.Contains(why, "statements and was not reviewed") {
		t.Errorf("%d statements of two bytes: %v %q, want a prompt saying it was not reviewed", maxStmts+1, d, why)
	}
	nest := func(n int) string { return strings.Repeat("{ ", n) + "ls" + strings.Repeat("; }", n) }
	if d, why := reasons(nest(maxNesting)); strings.Contains(why, "was not reviewed") {
		t.Errorf("%d levels of brackets: %v %q, want it reviewed (a group asks for itself)", maxNesting, d, why)
	}
	if d, why := reasons(nest(maxNesting + 1)); d != Prompt || !strings.Contains(why, "nests brackets more than") {
		t.Errorf("%d levels of brackets: %v %q, want a prompt saying it was not reviewed", maxNesting+1, d, why)
	}
	// A closing bracket before any opening one does not lower the count.
	if d, why := reasons(") " + nest(maxNesting+1)); d != Prompt || !strings.Contains(why, "nests brackets more than") {
		t.Errorf("a stray ) then %d levels: %v %q, want it not reviewed", maxNesting+1, d, why)
	}
}
