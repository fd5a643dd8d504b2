package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnOperatorFileIsJudgedWhereItWasOpened: the place check reads the
// path after the open. A symlinked configuration directory retargeted in
// between (by whoever may write the directory holding the link, which
// the check does not cover) from a workspace directory to the operator's
// own made the check judge the operator's directory while the bytes read
// were the workspace file's, which an agent writes as the same user.
func TestAnOperatorFileIsJudgedWhereItWasOpened(t *testing.T) {
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	for _, d := range []string{filepath.Join(ws, "cfg"), filepath.Join(top, "real", "cfg"), filepath.Join(top, "config")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "cfg", "approvals.yaml"), []byte("agent's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(top, "real", "cfg", "approvals.yaml"), []byte("operator's\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(top, "config", "demiurge")
	if err := os.Symlink(filepath.Join(ws, "cfg"), link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(link, "approvals.yaml")
	off := []AgentDir{{Name: "workspace", Path: ws}}
	if _, err := ReadOperatorFile(file, "approvals file", off); err == nil || !strings.Contains(err.Error(), "where an agent may write") {
		t.Fatalf("the workspace's file, unraced: %v", err)
	}
	testHookOperatorFileOpened = func() {
		if err := os.Remove(link); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(filepath.Join(top, "real", "cfg"), link); err != nil {
			t.Error(err)
		}
	}
	t.Cleanup(func() { testHookOperatorFileOpened = nil })
	data, err := ReadOperatorFile(file, "approvals file", off)
	if err == nil || !strings.Contains(err.Error(), "where an agent may write") {
		t.Fatalf("the link retargeted after the open: read %q, %v", data, err)
	}
	// The operator's own, through the link as it is now, is read.
	testHookOperatorFileOpened = nil
	if data, err := ReadOperatorFile(file, "approvals file", off); err != nil || string(data) != "operator's\n" {
		t.Fatalf("the operator's file: %q %v", data, err)
	}
}

// TestAnOperatorFileOthersMayWriteIsRefused: ReadOperatorFile refuses a
// file another user may write, in a directory another user may write, or
// in a directory under one (a rename of the directory would swap it); a
// directory further up is the system's (/tmp is 1777) and is not judged.
// A file of OperatorFileMax bytes is read; one byte more is refused.
func TestAnOperatorFileOthersMayWriteIsRefused(t *testing.T) {
	top := t.TempDir()
	open := filepath.Join(top, "open")
	for _, d := range []string{open + "/sub/deeper", top + "/own"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	put := func(p string, mode os.FileMode, size int) string {
		t.Helper()
		if err := os.WriteFile(p, make([]byte, size), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		file, refusal string
	}{
		{put(open+"/grants.yaml", 0o600, 1), "writable by others"},
		{put(open+"/sub/grants.yaml", 0o600, 1), "writable by others"},
		{put(top+"/own/shared.yaml", 0o666, 1), "writable by others"},
		{put(top+"/own/big.yaml", 0o600, OperatorFileMax+1), "is over"},
		{put(open+"/sub/deeper/grants.yaml", 0o600, 1), ""},
		{put(top+"/own/full.yaml", 0o600, OperatorFileMax), ""},
	} {
		data, err := ReadOperatorFile(tc.file, "grants file", nil)
		switch {
		case tc.refusal == "" && (err != nil || data == nil):
			t.Errorf("%s: %v, want it read", tc.file, err)
		case tc.refusal != "" && (err == nil || !strings.Contains(err.Error(), tc.refusal)):
			t.Errorf("%s: %v, want a refusal naming %q", tc.file, err, tc.refusal)
		}
	}
}

// TestOperatorFilePlaceSeesThroughLinks: a file whose directory is a link
// into a workspace, and a file in a workspace named (in off) through a
// link, are both inside it, by OperatorFilePlace alone and when read.
func TestOperatorFilePlaceSeesThroughLinks(t *testing.T) {
	top := t.TempDir()
	ws := filepath.Join(top, "ws")
	if err := os.MkdirAll(filepath.Join(ws, "cfg"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "cfg", "grants.yaml"), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"cfglink": filepath.Join(ws, "cfg"), "wslink": ws} {
		if err := os.Symlink(target, filepath.Join(top, name)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		file, off string
	}{
		{filepath.Join(top, "cfglink", "grants.yaml"), ws},
		{filepath.Join(ws, "cfg", "grants.yaml"), filepath.Join(top, "wslink")},
	} {
		off := []AgentDir{{Name: "workspace", Path: tc.off}}
		if err := OperatorFilePlace(tc.file, "grants file", off); err == nil || !strings.Contains(err.Error(), "where an agent may write") {
			t.Errorf("OperatorFilePlace(%s, off %s): %v", tc.file, tc.off, err)
		}
		if _, err := ReadOperatorFile(tc.file, "grants file", off); err == nil || !strings.Contains(err.Error(), "where an agent may write") {
			t.Errorf("ReadOperatorFile(%s, off %s): %v", tc.file, tc.off, err)
		}
	}
}
