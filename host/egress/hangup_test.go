package egress

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// TestUpstreamHangsUpWithoutAnAnswer: a server that accepts and closes
// gets the command a 502 and the request a "failed" event, through the
// proxy's own exchange (its failing return once called a cleanup the
// return itself had set to nil, a panic the http server swallowed: no
// answer, no event).
func TestUpstreamHangsUpWithoutAnAnswer(t *testing.T) {
	target := tcpServer(t, func(c net.Conn) { c.Close() })
	px := startProxy(t, Config{Allow: []netip.AddrPort{target}})
	addr := handedOver(t, px)
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL("http://" + addr)), DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := hc.Get("http://" + target.String() + "/")
	if err != nil {
		t.Fatalf("the command got no answer from the proxy: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("status %d, want 502", resp.StatusCode)
	}
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if evs := px.Events(); len(evs) == 1 {
			if evs[0].Verdict != "failed" || !strings.Contains(evs[0].Reason, "cannot reach") {
				t.Fatalf("event %+v, want failed: cannot reach", evs[0])
			}
			return
		}
	}
	t.Fatalf("no event for the request: %+v", px.Events())
}
