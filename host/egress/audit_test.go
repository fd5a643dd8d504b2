package egress

import (
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCloseWaitsForTheAudit: a connection's event reaches onConn off the
// connection's path, and Close returns only after it did (the call's
// audit is written after Close).
func TestCloseWaitsForTheAudit(t *testing.T) {
	srv := startServer(t, "tcp4", "127.0.0.1:0", body("ok"))
	var mu sync.Mutex
	var got []Event
	px, err := Start(Config{Allow: []netip.AddrPort{srv.addr}}, func(ev Event) {
		time.Sleep(200 * time.Millisecond) // a slow disk
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if st := raw(t, px, "GET http://"+srv.addr.String()+"/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"); !strings.Contains(st, " 200 ") {
		t.Fatalf("request: %s", st)
	}
	if d := time.Since(start); d > 150*time.Millisecond {
		t.Errorf("the response waited %v for the audit", d)
	}
	px.Close()
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Status != 200 {
		t.Fatalf("after Close, onConn had %+v", got)
	}
}
