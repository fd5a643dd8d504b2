package egress

import (
	"io"
	"net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
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

// TestPendingEventsAreBounded: a client opening many connections while
// the audit is slow gets at most maxPendingEvents events waiting on
// onConn; the rest wait in their handlers (back-pressure on the client)
// rather than each holding a goroutine of the host's, and an Unkept
// proxy (a plugin's, which lives as long as the plugin) keeps none.
func TestPendingEventsAreBounded(t *testing.T) {
	const n = maxConns // more than maxPendingEvents, and all held open at once
	release := make(chan struct{})
	var inflight, most, done atomic.Int32
	px, err := Start(Config{Unkept: true}, func(ev Event) {
		v := inflight.Add(1)
		for m := most.Load(); v > m && !most.CompareAndSwap(m, v); m = most.Load() {
		}
		<-release
		inflight.Add(-1)
		done.Add(1)
	})
	if err != nil {
		t.Fatal(err)
	}
	defer px.Close()
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("unix", px.Socket())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			// Refused before any lookup: port 22 is not on the default ports.
			io.WriteString(c, "CONNECT refused.example:22 HTTP/1.1\r\nHost: refused.example:22\r\n\r\n")
			io.Copy(io.Discard, c)
		}()
	}
	// Every connection has reported: onConn holds some, the rest wait.
	for inflight.Load()+px.waiting.Load() < n {
		time.Sleep(time.Millisecond)
	}
	if got := most.Load(); got > maxPendingEvents {
		t.Fatalf("%d events were waiting on onConn at once; at most %d may", got, maxPendingEvents)
	}
	close(release)
	wg.Wait()
	px.Close()
	if done.Load() != n {
		t.Fatalf("onConn saw %d of %d connections", done.Load(), n)
	}
	if evs := px.Events(); len(evs) != 0 {
		t.Fatalf("an Unkept proxy kept %d events", len(evs))
	}
}
