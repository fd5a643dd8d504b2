package frontargs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAStateDirectoryAnotherUserCouldReplaceIsRefused: the state holds
// the core that decides what runs, the plugins, the store and the host's
// socket; a state directory that another user could rename an entry of,
// or one on a way another user could rename, is refused before anything
// in it is read or made.
func TestAStateDirectoryAnotherUserCouldReplaceIsRefused(t *testing.T) {
	base := t.TempDir()
	mk := func(rel string, mode os.FileMode) string {
		p := filepath.Join(base, rel)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	own := mk("own", 0o700)
	loose := mk("loose", 0o777)
	group := mk("group", 0o770)
	stickyFinal := mk("stickyfinal", 0o777|os.ModeSticky)
	open := mk("open", 0o777)
	underOpen := mk("open/state", 0o700)
	mk("sticky", 0o777|os.ModeSticky)
	underSticky := mk("sticky/state", 0o700)
	os.Symlink(loose, filepath.Join(own, "abs-link"))
	os.Symlink("../loose", filepath.Join(own, "rel-link"))
	os.Symlink(own, filepath.Join(open, "link-in-open"))
	for _, c := range []struct {
		dir, refused string // refused: what the message names ("" admitted)
	}{
		{own, ""},
		{filepath.Join(own, "not-made/yet"), ""},
		{underSticky, ""},
		{filepath.Join(own, "abs-link/../own"), ""}, // the link's parent is base, ours
		{loose, "can be written by other users (mode 0777)"},
		{group, "can be written by other users (mode 0770)"},
		{stickyFinal, "can be written by other users (mode 1777)"},
		{underOpen, open + " can be written by other users"},
		{filepath.Join(open, "not-made"), open + " can be written by other users"},
		{filepath.Join(own, "abs-link"), loose + " can be written"},
		{filepath.Join(own, "rel-link/x"), loose + " can be written"},
		{filepath.Join(open, "link-in-open"), open + " can be written"},
	} {
		err := CheckStateDir(c.dir)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", c.dir, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s: CheckStateDir = %v; want a refusal naming %q", c.dir, err, c.refused)
		}
	}
	if err := CheckStateDir("relative/state"); err == nil {
		t.Error("a relative state directory was admitted")
	}
	// Every way the CLI names its state goes through the check.
	if _, err := StateDir(loose); err == nil {
		t.Error("--state of a loose directory admitted")
	}
	t.Setenv("XDG_STATE_HOME", loose)
	if _, err := StateDir(""); err == nil {
		t.Error("XDG_STATE_HOME of a loose directory admitted")
	}
	if os.Getuid() == 0 {
		theirs := mk("theirs", 0o755)
		mine := mk("theirs/mine", 0o700)
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{theirs, mine} {
			if err := CheckStateDir(d); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
				t.Errorf("%s (on another user's way): CheckStateDir = %v", d, err)
			}
		}
	}
}
