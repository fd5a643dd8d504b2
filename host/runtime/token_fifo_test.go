package runtime

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A FIFO planted at the token's path (by the same user: the runtime
// directory is the user's own) makes a client's token read fail at once,
// never wait for a writer.
func TestATokenThatIsAFIFOIsRefusedWithoutWaiting(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "host.sock")
	if err := syscall.Mkfifo(TokenPath(socket), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := readToken(socket); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Fatalf("readToken of a FIFO: %v, want it refused as not a regular file", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("readToken waited on a FIFO")
	}
}
