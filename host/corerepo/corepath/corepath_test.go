package corepath

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadLiveTakesOnlyALooseCommitID(t *testing.T) {
	state := t.TempDir()
	if _, ok := ReadLive(state); ok {
		t.Fatal("no repository, yet a live commit")
	}
	ref := filepath.Join(GitDir(state), "refs", "demiurge", "live")
	if err := os.MkdirAll(filepath.Dir(ref), 0o700); err != nil {
		t.Fatal(err)
	}
	id := strings.Repeat("ab", 20)
	for content, want := range map[string]bool{
		id + "\n":                       true,
		id:                              true,
		"ref: refs/demiurge/previous\n": false, // symbolic: the repository decides
		strings.ToUpper(id) + "\n":      false,
		id[:39] + "\n":                  false,
		"../../../etc\n":                false,
		id + "\n" + id + "\n":           false,
	} {
		if err := os.WriteFile(ref, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, ok := ReadLive(state)
		if ok != want || ok && got != id {
			t.Errorf("ReadLive(%q) = %q, %v; want ok=%v", content, got, ok, want)
		}
	}
	if CoreDir(state, id, "x") != filepath.Join(state, "core", "trees", id, "agents", "x") {
		t.Fatal(CoreDir(state, id, "x"))
	}
}
