package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTTYApprovalShowsADiff: write_file and patch approvals on a terminal
// show what they change as a bounded unified diff, not their arguments as
// JSON; a long change is cut with a count of what was left out.
func TestTTYApprovalShowsADiff(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	s := startTTY(t, t.TempDir(), ws)

	s.line(`/call write_file {"path":"a.txt","content":"one\nTWO\nthree\n"}`)
	s.see("approval needed")
	from := s.at
	s.see("--- a/a.txt")
	s.see("+++ b/a.txt")
	s.see("-two")
	s.see("+TWO")
	s.see("[s]ession")
	if strings.Contains(s.since(from), `"content"`) {
		t.Fatalf("the write's approval showed its arguments as JSON:\n%s", s.since(from))
	}
	s.line("o")
	s.see("replaced a.txt")

	s.line(`/call patch {"path":"a.txt","old_string":"three","new_string":"3"}`)
	s.see("approval needed")
	from = s.at
	s.see("-three")
	s.see("+3")
	s.see("[s]ession")
	if strings.Contains(s.since(from), `"old_string"`) {
		t.Fatalf("the patch's approval showed its arguments as JSON:\n%s", s.since(from))
	}
	s.line("d")
	s.see("denied")

	var long strings.Builder
	for i := 0; i < 100; i++ {
		fmt.Fprintf(&long, "line %d\\n", i)
	}
	s.line(`/call write_file {"path":"b.txt","content":"` + long.String() + `"}`)
	s.see("+line 30")
	s.see("more lines")
	s.see("[s]ession")
	s.line("d")
	s.see("denied")
	s.line("/quit")
	s.waitExit(20 * time.Second)
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "one\nTWO\nthree\n" {
		t.Fatalf("a.txt = %q", b)
	}
}

// TestTTYASaveMadeWhileTheCardIsUpIsKept: with the real binary and a
// terminal, the operator sees write_file's diff against the file as it
// is; someone saves the file while the card is up; the operator allows
// the write. It writes nothing and says so: the save is kept (it was
// silently replaced before stop 49).
func TestTTYASaveMadeWhileTheCardIsUpIsKept(t *testing.T) {
	ws := t.TempDir()
	a := filepath.Join(ws, "a.txt")
	os.WriteFile(a, []byte("one\n"), 0o644)
	s := startTTY(t, t.TempDir(), ws)

	s.line(`/call write_file {"path":"a.txt","content":"model\n"}`)
	s.see("approval needed")
	s.see("-one")
	s.see("[s]ession")
	os.WriteFile(a, []byte("the user's save\n"), 0o644)
	s.line("o")
	s.see("nothing was written")
	s.line("/quit")
	s.waitExit(20 * time.Second)
	if b, _ := os.ReadFile(a); string(b) != "the user's save\n" {
		t.Fatalf("the save made while the card was up was lost: a.txt = %q", b)
	}
}
