package netpolicy

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// server starts a real HTTP server on a counting loopback listener.
func server(t *testing.T, h http.Handler) (*countingListener, string) {
	t.Helper()
	l := listen(t, "tcp", "127.0.0.1:0")
	srv := &http.Server{Handler: h}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	_, port, _ := strings.Cut(l.Addr().String(), ":")
	return l, port
}

func TestClientPinsAndKeepsHost(t *testing.T) {
	var seenHost, seenAuth, seenKey, seenRef string
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		seenHost = r.Host
		io.WriteString(w, "ok")
	})
	mux.HandleFunc("/to-other", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://other.test:"+r.URL.Query().Get("port")+"/landing", http.StatusFound)
	})
	mux.HandleFunc("/landing", func(w http.ResponseWriter, r *http.Request) {
		seenAuth, seenKey, seenRef = r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.Header.Get("Referer")
		io.WriteString(w, "landed "+r.Header.Get("User-Agent"))
	})
	l, port := server(t, mux)
	var log decisionLog
	p := New(Options{
		Resolver:              mapResolver{"site.test": {"127.0.0.1"}, "other.test": {"127.0.0.1"}},
		AllowLoopbackForTests: true,
		OnDecision:            log.add,
	})
	c := p.Client()
	defer c.CloseIdleConnections()

	resp, err := c.Get("http://site.test:" + port + "/page")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if seenHost != "site.test:"+port {
		t.Errorf("Host header %q; want the name, not the address", seenHost)
	}

	req, _ := http.NewRequest("GET", "http://site.test:"+port+"/to-other?port="+port, nil)
	req.Header.Set("Authorization", "Bearer secret-token-value")
	req.Header.Set("X-Api-Key", "secret-key-value")
	req.Header.Set("User-Agent", "netpolicy-test")
	resp, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "landed netpolicy-test" {
		t.Errorf("body %q", body)
	}
	if seenAuth != "" || seenKey != "" || seenRef != "" {
		t.Errorf("cross-origin redirect kept Authorization %q, X-Api-Key %q, Referer %q", seenAuth, seenKey, seenRef)
	}
	if l.accepted.Load() == 0 {
		t.Error("no connection reached the server")
	}
	ds := log.all()
	if len(ds) != 3 || ds[2].Phase != "redirect" || !ds[2].Allowed || ds[2].Origin != "http://other.test:"+port {
		t.Errorf("decisions %+v", ds)
	}
	for _, d := range ds {
		if strings.Contains(d.Origin, "/") && strings.Count(d.Origin, "/") != 2 {
			t.Errorf("decision origin %q has a path", d.Origin)
		}
	}
}

func TestClientRefusesUserinfoWithoutSending(t *testing.T) {
	l, port := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	p := New(Options{Resolver: mapResolver{"site.test": {"127.0.0.1"}}, AllowLoopbackForTests: true})
	_, err := p.Client().Get("http://user:hunter2@site.test:" + port + "/")
	if !errors.Is(err, ErrRefused) {
		t.Fatalf("err %v; want a refusal", err)
	}
	if strings.Contains(SafeMessage(err), "hunter2") {
		t.Errorf("message leaks the password: %s", SafeMessage(err))
	}
	if n := l.accepted.Load(); n != 0 {
		t.Errorf("%d connections accepted", n)
	}
}

func TestTransportRefusesUnverifiedDial(t *testing.T) {
	p := New(Options{AllowLoopbackForTests: true})
	tr := p.Transport().(*guard).inner
	if _, err := tr.DialContext(context.Background(), "tcp", "127.0.0.1:1"); !errors.Is(err, ErrRefused) {
		t.Errorf("dial without verification: %v; want a refusal", err)
	}
}

// TestTLSKeepsNameForSNIAndHost: the connection is pinned to 127.0.0.1,
// while TLS SNI, certificate verification and the Host header use the
// name; a redirect from https to http is not followed.
func TestTLSKeepsNameForSNIAndHost(t *testing.T) {
	var sni, host atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		host.Store(r.Host)
		io.WriteString(w, "secure")
	})
	mux.HandleFunc("/down", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://example.com/page", http.StatusFound)
	})
	srv := httptest.NewUnstartedServer(mux)
	srv.TLS = &tls.Config{GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
		sni.Store(h.ServerName)
		return nil, nil
	}}
	srv.StartTLS()
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	roots := x509.NewCertPool()
	roots.AddCert(srv.Certificate())
	// httptest's certificate is for example.com (and 127.0.0.1).
	p := New(Options{
		Resolver:              mapResolver{"example.com": {"127.0.0.1"}},
		AllowLoopbackForTests: true,
		TLSClientConfig:       &tls.Config{RootCAs: roots, ServerName: "evil.test"},
	})
	c := p.Client()
	defer c.CloseIdleConnections()
	resp, err := c.Get("https://example.com:" + port + "/page")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if sni.Load() != "example.com" || host.Load() != "example.com:"+port {
		t.Errorf("SNI %v, Host %v; want example.com and example.com:%s", sni.Load(), host.Load(), port)
	}
	_, err = c.Get("https://example.com:" + port + "/down")
	var re *RefusedError
	if !errors.As(err, &re) || re.Class != "redirect" {
		t.Errorf("https → http redirect: %v; want refused", err)
	}
}
