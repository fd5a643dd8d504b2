package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A server that fails over and over appends its stderr window at each
// close: the log is rotated at MaxStderrLog, so the two files never hold
// more than twice that plus one entry, and the newest entry is kept.
func TestTheStderrLogNeverGrowsPastItsBound(t *testing.T) {
	state := t.TempDir()
	window := strings.Repeat("chatty server line\n", StderrWindow/19)
	for i := range 3 * MaxStderrLog / len(window) {
		if err := appendStderrLog(state, "chatty", "exit status 1", window); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
	}
	if err := appendStderrLog(state, "chatty", "the last one", "last words\n"); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(state, "logs")
	var total int64
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want 0600", e.Name(), fi.Mode().Perm())
		}
		total += fi.Size()
	}
	if len(entries) != 2 {
		t.Errorf("logs holds %d files, want mcp-stderr.log and mcp-stderr.log.1", len(entries))
	}
	if limit := int64(2*MaxStderrLog + len(window) + 200); total > limit {
		t.Fatalf("the stderr logs hold %d bytes, over %d", total, limit)
	}
	b, err := os.ReadFile(filepath.Join(dir, "mcp-stderr.log"))
	if err != nil || !strings.HasSuffix(string(b), "last words\n") {
		t.Fatalf("the newest entry is not at the log's end (%v)", err)
	}
}
