// Package oracle is untrusted.Screen as it was before its scan was
// split into a word pass and a rule pass (issue 30): kept unchanged as
// the test oracle the fast screener is compared with (same signals,
// counts and first offsets), and as the "old" side of the screening
// benchmarks. No production code imports it. It is the reference of
// the rules, not frozen against new ones: a new spelling goes into both
// markup lists (as "\r\n\r\nHuman:" did, issue 30), a new rule into
// both (the turn markers' turnAt, stop 59), the scan stays as it was.
package oracle
