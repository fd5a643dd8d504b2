package frontview

import (
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// failingOnce is a listener whose first Accept fails as a process out
// of file descriptors sees it.
type failingOnce struct {
	net.Listener
	failed atomic.Bool
}

func (l *failingOnce) Accept() (net.Conn, error) {
	if !l.failed.Swap(true) {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestAcceptConnsOutlivesAFailedAccept: an Accept error other than the
// listener's closing (EMFILE) does not end the relay; the next client is
// served, and closing the listener ends the loop.
func TestAcceptConnsOutlivesAFailedAccept(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := &failingOnce{Listener: tcp}
	done := make(chan struct{})
	go func() {
		defer close(done)
		acceptConns(ln, func(c net.Conn) {
			defer c.Close()
			_, _ = c.Write([]byte("served"))
		})
	}()
	c, err := net.Dial("tcp", tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	if string(got) != "served" || !ln.failed.Load() {
		t.Fatalf("client got %q (%v) after the failed Accept (failed: %v)", got, err, ln.failed.Load())
	}
	tcp.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the accept loop outlived its closed listener")
	}
}
