package shellguard

import (
	"os"
	"path/filepath"
	"testing"
)

// TestTheRepositoryFoundTravelsWithTheCachedReview: the repository the
// review found is kept with the review (the content rules then need no
// second walk), and it is exactly as good as the walk's stamps: a
// directory with no repository that becomes one is seen at the next
// check, and a repository found from the cache still makes a history
// print of a committed credential ask, check after check.
func TestTheRepositoryFoundTravelsWithTheCachedReview(t *testing.T) {
	base, _ := filepath.EvalSymlinks(t.TempDir())
	ws := filepath.Join(base, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(ws, "a.txt"), "hello\n")
	opts := Options{WorkspaceRoot: ws, Cwd: ws, Files: OSFiles{}}
	waitSettled() // so that the review is cached
	for i := range 2 {
		if v := Check("git log -p", opts); v.Decision != Allow {
			t.Fatalf("check %d without a repository: %v %v", i, v.Decision, v.Reasons)
		}
	}
	gitRepo(t, ws, map[string]string{".env": "TOKEN=s3cr3t\n"})
	waitSettled()
	for i := range 3 {
		if v := Check("git log -p", opts); v.Decision != Prompt {
			t.Fatalf("check %d after git init (the review cached, or not): %v %v", i, v.Decision, v.Reasons)
		}
	}
}
