package main

import (
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/egress"
)

// waitFor waits for cond; the bound only ends a test that would
// otherwise wait for ever.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not after 20 s: %s", what)
		}
	}
}

// TestASandboxedCommandsManyConnectionsAreFolded: a real network-mode
// command opening more connections than its proxy keeps in full (one
// curl each, through the proxy) leaves the first 256 records and the
// rest folded, counted and per host: the call's record stops growing.
func TestASandboxedCommandsManyConnectionsAreFolded(t *testing.T) {
	needTool(t, "curl")
	srv := startLoopbackServer(t, "ok")
	f := newFixture(t)
	p, px := proxiedPolicy(t, f, egress.Config{Allow: []netip.AddrPort{srv.addr}})
	const n = 300
	url := "http://" + srv.addr.String() + "/"
	r := f.run(t, p, fmt.Sprintf(`i=0; while [ $i -lt %d ]; do NO_PROXY= no_proxy= curl -sS -o /dev/null --max-time 20 %s || exit 1; i=$((i+1)); done`, n, url))
	if r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stderr)
	}
	waitFor(t, "every connection's event", func() bool { return len(px.Events())+px.Folded().Count == n })
	evs, folded := px.Events(), px.Folded()
	if len(evs) != 256 || folded.Count != n-256 || folded.Verdicts["allowed"] != folded.Count ||
		len(folded.Hosts) != 1 || folded.Hosts[0].Count != folded.Count || folded.Recv == 0 {
		t.Fatalf("kept %d, folded %+v", len(evs), folded)
	}
	if got := srv.accepted.Load(); got != n {
		t.Fatalf("the server accepted %d connections, want %d", got, n)
	}
}

// TestASandboxedCommandHoldsAtMost64Connections: a real network-mode
// command holding 100 connections to its proxy open at once (bash's
// /dev/tcp, nothing sent: half-open) gets 64 served; the other 36 are
// closed by the proxy and audited as refused, "too many connections".
func TestASandboxedCommandHoldsAtMost64Connections(t *testing.T) {
	needTool(t, "bash")
	f := newFixture(t)
	p, px := proxiedPolicy(t, f, egress.Config{})
	// Holds them all until the proxy has refused the rest: the command
	// waits for its own marker, the test writes it.
	script := `exec bash -c 'port=${HTTP_PROXY##*:}; for i in $(seq 10 109); do eval "exec $i<>/dev/tcp/127.0.0.1/$port" || exit 1; done; while [ ! -e go-on ]; do sleep 0.05; done'`
	done := make(chan result, 1)
	go func() { done <- f.run(t, p, script) }()
	refused := func() int {
		n := 0
		for _, ev := range px.Events() {
			if ev.Verdict == "refused" && ev.Kind == "connection" && strings.Contains(ev.Reason, "too many connections") {
				n++
			}
		}
		return n
	}
	waitFor(t, "36 refusals", func() bool { return refused() >= 36 })
	if err := os.WriteFile(filepath.Join(f.ws, "go-on"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.exit != 0 {
		t.Fatalf("exit %d: %s", r.exit, r.stderr)
	}
	if got := refused(); got != 36 {
		t.Fatalf("%d connections refused as too many, want 36", got)
	}
}
