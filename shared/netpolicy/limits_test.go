package netpolicy

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRedirectCountIsInclusive: a chain of MaxRedirects redirects reaches
// its end; one more is refused before the last request is sent.
func TestRedirectCountIsInclusive(t *testing.T) {
	var landed atomic.Int64 // written by the server's goroutine
	mux := http.NewServeMux()
	mux.HandleFunc("/hops/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			landed.Add(1)
			return
		}
		http.Redirect(w, r, "/hops/"+strconv.Itoa(n-1), http.StatusFound)
	})
	_, port := server(t, mux)
	for _, max := range []int{1, 5} {
		p := New(Options{Resolver: corpusResolver, AllowLoopbackForTests: true, DialTimeout: time.Second, MaxRedirects: max})
		client := p.Client()
		for _, hops := range []int{max, max + 1} {
			landed.Store(0)
			resp, err := client.Get("http://site.test:" + port + "/hops/" + strconv.Itoa(hops))
			if resp != nil {
				resp.Body.Close()
			}
			if ok := hops <= max; (err == nil) != ok || (landed.Load() == 1) != ok {
				t.Errorf("MaxRedirects %d, %d redirects: err %v, landed %d", max, hops, err, landed.Load())
			}
			if hops > max && !errors.Is(err, ErrRefused) {
				t.Errorf("MaxRedirects %d, %d redirects: %v, want a refusal", max, hops, err)
			}
		}
		client.CloseIdleConnections()
	}
}

// TestVerifyHostPort: a host and port as the egress proxy names them:
// port 0 is refused, an IPv6 literal is read as one (public: allowed;
// loopback: refused), and a refused name stays refused under the tests'
// loopback allowance when its class is not loopback.
func TestVerifyHostPort(t *testing.T) {
	p := New(Options{Resolver: corpusResolver})
	ctx := context.Background()
	if _, _, err := p.VerifyHostPort(ctx, "2606:4700::1111", 0); err == nil || !strings.Contains(err.Error(), "between 1 and 65535") {
		t.Errorf("port 0: %v", err)
	}
	if tg, addrs, err := p.VerifyHostPort(ctx, "2606:4700::1111", 443); err != nil || tg.Host != "2606:4700::1111" || len(addrs) != 1 {
		t.Errorf("a public IPv6 literal: %+v %v %v", tg, addrs, err)
	}
	if _, _, err := p.VerifyHostPort(ctx, "::1", 443); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), ClassLoopback) {
		t.Errorf("the IPv6 loopback: %v", err)
	}
	lp := New(Options{Resolver: corpusResolver, AllowLoopbackForTests: true})
	if _, _, err := lp.VerifyHostPort(ctx, "metadata.google.internal", 80); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), ClassMetadata) {
		t.Errorf("a metadata name under the loopback allowance: %v", err)
	}
	if _, _, err := lp.VerifyHostPort(ctx, "localhost", 80); errors.Is(err, ErrRefused) && strings.Contains(err.Error(), "always means") {
		t.Errorf("localhost under the loopback allowance was refused by name: %v", err)
	}
}

// TestCancelledLookupSaysSo: a lookup ended by the caller's context is a
// refusal that carries the context's error, not a name that does not
// resolve.
func TestCancelledLookupSaysSo(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := New(Options{Resolver: errResolver{}}).Verify(ctx, "http://example.com/")
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("cancelled lookup: %v", err)
	}
}

// TestPortBoundsAndTheLoopbackAllowanceOnly: ports 1 and 65535 are
// ports; the tests' loopback allowance lets loopback through Check, and
// no other refused class, as an address or as a name.
func TestPortBoundsAndTheLoopbackAllowanceOnly(t *testing.T) {
	for _, raw := range []string{"http://example.com:1/", "https://example.com:65535/"} {
		if _, err := Parse(raw); err != nil {
			t.Errorf("Parse(%s): %v", raw, err)
		}
	}
	p := New(Options{AllowLoopbackForTests: true})
	if _, err := p.Check("http://127.0.0.1:8080/"); err != nil {
		t.Errorf("loopback under the allowance: %v", err)
	}
	for _, raw := range []string{"http://169.254.169.254/", "http://10.0.0.1/", "http://metadata.google.internal/"} {
		if _, err := p.Check(raw); !errors.Is(err, ErrRefused) {
			t.Errorf("Check(%s) under the loopback allowance: %v", raw, err)
		}
	}
}
