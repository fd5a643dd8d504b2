package egress

import (
	"net"
	"testing"
)

// TestFoldedIsASnapshot: what Folded returns is the caller's own (the
// audit encodes it while the proxy folds more connections): later folds
// change neither its verdict counts nor its hosts.
func TestFoldedIsASnapshot(t *testing.T) {
	var p Proxy
	p.folded.fold(Event{Verdict: "allowed", Host: "a.test", Port: 443})
	snap := p.Folded()
	p.folded.fold(Event{Verdict: "allowed", Host: "a.test", Port: 443})
	p.folded.fold(Event{Verdict: "refused", Host: "b.test", Port: 22})
	if snap.Verdicts["allowed"] != 1 || snap.Verdicts["refused"] != 0 || snap.Hosts[0].Count != 1 || len(snap.Hosts) != 1 {
		t.Fatalf("the snapshot changed with later folds: %+v", snap)
	}
}

// TestBareUnwrapsOnlyAnEmptyPrefix: a connection whose routing byte was
// read again is the socket itself (so copies can splice); one with bytes
// still to give is not, or they would be lost.
func TestBareUnwrapsOnlyAnEmptyPrefix(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if got := bare(&prefixedConn{Conn: a}); got != a {
		t.Errorf("bare of a spent prefix = %T, want the socket", got)
	}
	pc := &prefixedConn{Conn: a, pre: []byte{'G'}}
	if got := bare(pc); got != net.Conn(pc) {
		t.Errorf("bare of a prefix with a byte left = %T, want the prefixed connection", got)
	}
	if got := bare(a); got != a {
		t.Errorf("bare of a plain connection = %T, want it", got)
	}
}
