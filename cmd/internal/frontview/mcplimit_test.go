package frontview

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// TestRelayWaitsBeyondItsCap: with --max-concurrent 1 the relay serves
// relayedPerRequest connections at once; the next client is not served
// (it waits in the backlog) until one of them closes.
func TestRelayWaitsBeyondItsCap(t *testing.T) {
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := limitRelayed(tcp, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		acceptConns(ln, func(c net.Conn) {
			defer c.Close()
			if _, err := c.Write([]byte("served")); err == nil {
				_, _ = io.Copy(io.Discard, c) // held until the client closes
			}
		})
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", tcp.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	served := func(c net.Conn, within time.Duration) error {
		_ = c.SetReadDeadline(time.Now().Add(within))
		buf := make([]byte, len("served"))
		_, err := io.ReadFull(c, buf)
		return err
	}
	var held []net.Conn
	for i := range relayedPerRequest {
		c := dial()
		if err := served(c, 10*time.Second); err != nil {
			t.Fatalf("connection %d of %d not served: %v", i+1, relayedPerRequest, err)
		}
		held = append(held, c)
	}
	extra := dial()
	if err := served(extra, 300*time.Millisecond); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("connection %d beyond the cap of %d: got %v, want it waiting", relayedPerRequest+1, relayedPerRequest, err)
	}
	held[0].Close()
	if err := served(extra, 10*time.Second); err != nil {
		t.Fatalf("the waiting connection not served after one closed: %v", err)
	}
	ln.Close()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the accept loop outlived its closed listener")
	}
}
