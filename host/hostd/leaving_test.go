package hostd

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
)

// TestDialToAHostThatIsLeaving: a host that holds the state's lock while
// its socket no longer answers (it is exiting: an idle exit closes the
// socket before the store) is no host once it lets go of the lock, so a
// command that came in that moment (`host stop` in host_schedules.txtar,
// as the host's idle exit began) finds none instead of failing.
func TestDialToAHostThatIsLeaving(t *testing.T) {
	state := t.TempDir()
	if err := os.MkdirAll(RuntimeDir(state), 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := flock(LockPath(state), syscall.LOCK_EX, true)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(LockPath(state), []byte("12345\n"), 0o600)
	// The socket file and token are still there, but nothing listens.
	l, err := net.Listen("unix", SocketPath(state))
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	if err := os.WriteFile(runtime.TokenPath(SocketPath(state)), []byte("tok\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(300 * time.Millisecond); lock.Close() }()
	c, err := Dial(context.Background(), state, DialOptions{})
	if c != nil {
		c.Close()
	}
	if !errors.Is(err, ErrNoHost) {
		t.Fatalf("dial to a host that let go of its lock: %v, want ErrNoHost", err)
	}
}
