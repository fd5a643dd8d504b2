package netpolicy

import (
	"context"
	"errors"
	"net/netip"
	"testing"
	"time"
)

// TestDialPinnedChecksEveryAddress: DialPinned refuses an address of a
// refused class even when a caller hands it one (it never trusts that
// Verify ran), and dials an operator-allowed address only at its port.
func TestDialPinnedChecksEveryAddress(t *testing.T) {
	l := listen(t, "tcp4", "127.0.0.1:0")
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	ap := netip.MustParseAddrPort(l.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, _, err := New(Options{}).DialPinned(ctx, []netip.Addr{ap.Addr()}, ap.Port()); !errors.Is(err, ErrRefused) {
		t.Fatalf("a loopback address without an allowance: %v", err)
	}
	if _, _, err := New(Options{AllowPrivate: []netip.AddrPort{netip.AddrPortFrom(ap.Addr(), ap.Port()+1)}}).DialPinned(ctx, []netip.Addr{ap.Addr()}, ap.Port()); !errors.Is(err, ErrRefused) {
		t.Fatalf("an allowance of another port: %v", err)
	}
	if n := l.accepted.Load(); n != 0 {
		t.Fatalf("the listener accepted %d connections", n)
	}
	c, got, err := New(Options{AllowPrivate: []netip.AddrPort{ap}}).DialPinned(ctx, []netip.Addr{ap.Addr()}, ap.Port())
	if err != nil || got != ap {
		t.Fatalf("the allowed address: %v %v", got, err)
	}
	c.Close()
	if _, _, err := New(Options{}).VerifyHostPort(ctx, "0x7f.1", 80); !errors.Is(err, ErrRefused) {
		t.Fatalf("VerifyHostPort of a loopback spelling: %v", err)
	}
}
