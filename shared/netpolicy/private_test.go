package netpolicy

import (
	"errors"
	"io"
	"net/http"
	"net/netip"
	"strconv"
	"testing"
)

// TestAllowPrivateExact: the operator's allowance lets exactly one
// address at one port through; everything near it stays refused.
func TestAllowPrivateExact(t *testing.T) {
	p := New(Options{
		AllowPrivate: []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:3999"), netip.MustParseAddrPort("[fd00::5]:443")},
		Resolver:     mapResolver{"ide.test": {"127.0.0.1"}, "mixed.test": {"127.0.0.1", "127.0.0.2"}},
	})
	for _, c := range []struct {
		url   string
		allow bool
	}{
		{"http://127.0.0.1:3999/mcp", true},
		{"http://127.0.0.1:4000/mcp", false}, // another port
		{"http://127.0.0.1/mcp", false},      // the default port
		{"http://127.0.0.2:3999/mcp", false}, // another loopback address
		{"http://10.0.0.1:3999/mcp", false},  // another private address
		{"http://[::ffff:127.0.0.1]:3999/mcp", true},
		{"http://2130706433:3999/mcp", true}, // the same address, written numerically
		{"http://localhost:3999/mcp", false}, // a name that always means loopback
		{"http://ide.test:3999/mcp", true},   // a name whose every answer is allowed
		{"http://mixed.test:3999/mcp", false},
		{"https://[fd00::5]/mcp", true},
		{"http://[fd00::5]/mcp", false}, // port 80, not 443
		{"http://169.254.169.254:3999/", false},
	} {
		_, _, err := p.Verify(t.Context(), c.url)
		if (err == nil) != c.allow {
			t.Errorf("%s: err %v, want allowed %v", c.url, err, c.allow)
		}
		if err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("%s: %v is not a refusal", c.url, err)
		}
	}
	// Without the allowance the same address is refused.
	if _, _, err := New(Options{}).Verify(t.Context(), "http://127.0.0.1:3999/mcp"); err == nil {
		t.Fatal("loopback allowed without an allowance")
	}
}

// TestAllowPrivateRedirect: a client allowed one private address is
// still refused a redirect to any other private address or port, and
// the allowed request's decision names the allowance.
func TestAllowPrivateRedirect(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/ok", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	})
	_, port := server(t, mux)
	n, _ := strconv.Atoi(port)
	allowed := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), uint16(n))
	var log decisionLog
	p := New(Options{AllowPrivate: []netip.AddrPort{allowed}, OnDecision: log.add})
	c := p.Client()
	resp, err := c.Get("http://127.0.0.1:" + port + "/ok")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if ds := log.all(); len(ds) != 1 || !ds[0].Allowed || ds[0].Private != allowed.String() || ds[0].Class != ClassLoopback {
		t.Fatalf("decisions %+v", ds)
	}
	for _, to := range []string{
		"http://127.0.0.2:" + port + "/ok",
		"http://127.0.0.1:" + strconv.Itoa(n+1) + "/ok",
		"http://10.1.2.3/ok",
		"http://localhost:" + port + "/ok",
		"http://169.254.169.254/latest/meta-data/",
	} {
		resp, err := c.Get("http://127.0.0.1:" + port + "/away?to=" + to)
		if err == nil {
			resp.Body.Close()
			t.Errorf("redirect to %s followed", to)
		} else if !errors.Is(err, ErrRefused) {
			t.Errorf("redirect to %s: %v is not a refusal", to, err)
		}
	}
	// To the allowed address itself, a redirect is followed.
	resp, err = c.Get("http://127.0.0.1:" + port + "/away?to=http://127.0.0.1:" + port + "/ok")
	if err != nil {
		t.Fatalf("a redirect to the allowed address: %v", err)
	}
	resp.Body.Close()
}
