package egress

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// TestEndlessResponseHeadIsCut: an upstream whose response head never
// ends is cut at the bound (as http.Transport cuts it), and the command
// gets 502, not the host's memory growing.
func TestEndlessResponseHeadIsCut(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		go io.Copy(io.Discard, c)
		bw := bufio.NewWriter(c)
		bw.WriteString("HTTP/1.1 200 OK\r\n")
		line := "X-Filler: " + strings.Repeat("a", 1000) + "\r\n"
		for i := 0; i < 2*maxHeadBytes/len(line); i++ {
			if _, err := bw.WriteString(line); err != nil {
				return
			}
		}
		bw.Flush()
	}()
	addr := netip.MustParseAddrPort(ln.Addr().String())
	px := startProxy(t, Config{Allow: []netip.AddrPort{addr}})
	resp, err := client(px).Get("http://" + addr.String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway {
		t.Fatalf("status %d, want 502", resp.StatusCode)
	}
	if ev := px.Events(); len(ev) != 1 || !strings.Contains(ev[0].Reason, "head exceeded") {
		t.Fatalf("events %+v", ev)
	}
}
