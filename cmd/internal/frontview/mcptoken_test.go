package frontview

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTokenFileMustBeTheOperatorsOwnSecret: the token is the endpoint's
// whole authority (its client answers its own approvals), so a token
// file another user can read or write, another user's file, or one
// that is not a regular file is refused; a FIFO is refused without
// waiting for a writer. The operator's own 0600 file (also through a
// link) is read.
func TestTokenFileMustBeTheOperatorsOwnSecret(t *testing.T) {
	dir := t.TempDir()
	const tok = "operator-token-0123456789"
	write := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	own := write("own", 0o600)
	if got, err := MCPToken(own); err != nil || got != tok {
		t.Fatalf("the operator's 0600 file: %q, %v", got, err)
	}
	if got, err := MCPToken(write("readonly", 0o400)); err != nil || got != tok {
		t.Fatalf("the operator's 0400 file: %q, %v", got, err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(own, link); err != nil {
		t.Fatal(err)
	}
	if got, err := MCPToken(link); err != nil || got != tok {
		t.Fatalf("a link to the operator's 0600 file: %q, %v", got, err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A FIFO of the operator's, 0600, that a process feeds the token.
	fed := filepath.Join(dir, "fed")
	if err := syscall.Mkfifo(fed, 0o600); err != nil {
		t.Fatal(err)
	}
	feeder, err := os.OpenFile(fed, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer feeder.Close()
	if _, err := feeder.WriteString(tok + "\n"); err != nil {
		t.Fatal(err)
	}
	refused := map[string]string{
		"world-readable": write("world", 0o644),
		"group-readable": write("group", 0o640),
		"other-writable": write("otherw", 0o602),
		"group-writable": write("groupw", 0o620),
		"a directory":    t.TempDir(),
		"a device":       os.DevNull,
		"a FIFO":         fifo,
		"a fed FIFO":     fed,
		"a link to a world-readable file": func() string {
			p := filepath.Join(dir, "worldlink")
			if err := os.Symlink(filepath.Join(dir, "world"), p); err != nil {
				t.Fatal(err)
			}
			return p
		}(),
	}
	if os.Getuid() == 0 { // root can give a file away: another user's file
		p := write("theirs", 0o600)
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		refused["another user's"] = p
	}
	for name, p := range refused {
		done := make(chan error, 1)
		go func() { _, err := MCPToken(p); done <- err }()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s token file accepted", name)
			} else if !strings.Contains(err.Error(), "--token-file") {
				t.Errorf("%s: %v does not name --token-file", name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s token file: still waiting after 5s", name)
		}
	}
}
