package shellguard

import "testing"

// TestTableFigures counts the guard's table for BENCHMARKS.md: rows by
// the decision they must get, and the rows the guard gets wrong in the
// dangerous direction. A false allow is a row that must prompt or block
// but is allowed; a missed block is a row that must block but does not.
// Both must be 0 (TestTable fails on any mismatch; this test fails on
// these two kinds alone, so the figure is the test's own count).
func TestTableFigures(t *testing.T) {
	var rows [3]int
	falseAllows, missedBlocks, falsePrompts := 0, 0, 0
	for _, r := range table {
		rows[r.decision]++
		v := Check(r.cmd, tableOptions)
		if r.decision != Allow && v.Decision == Allow {
			falseAllows++
			t.Errorf("false allow: %q", r.cmd)
		}
		if r.decision == Allow && v.Decision != Allow {
			falsePrompts++ // TestTable fails on these; counted for the figure
		}
		if r.decision == Block && v.Decision != Block {
			missedBlocks++
			t.Errorf("missed block: %q", r.cmd)
		}
	}
	t.Logf("table: %d rows: %d allow, %d prompt, %d block; false allows %d, missed blocks %d, allow rows not allowed %d",
		len(table), rows[Allow], rows[Prompt], rows[Block], falseAllows, missedBlocks, falsePrompts)
}
