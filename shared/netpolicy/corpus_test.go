package netpolicy

import (
	"demiurge.dev/shared/netpolicy/urlcorpus"

	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// corpusResolver maps the corpus's names; anything else is NXDOMAIN.
var corpusResolver = mapResolver(urlcorpus.Names)

// refusedForms are URL forms that must never connect (urlcorpus).
var refusedForms = urlcorpus.RefusedForms

// TestCorpusNeverConnects runs every refused form through the pinned client
// of a production policy (no loopback allowance) and checks that each is
// refused by the policy, that its message carries no userinfo or path, and
// that the loopback listeners accepted no connection at all.
func TestCorpusNeverConnects(t *testing.T) {
	if len(refusedForms) < 80 {
		t.Fatalf("corpus has %d forms; want at least 80", len(refusedForms))
	}
	v4 := listen(t, "tcp4", "127.0.0.1:0")
	_, port, _ := strings.Cut(v4.Addr().String(), ":")
	// The IPv6 loopback listener shares the port when it can.
	v6 := listen(t, "tcp6", "[::1]:"+port)
	for _, l := range []*countingListener{v4, v6} {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	p := New(Options{Resolver: corpusResolver, DialTimeout: time.Second})
	client := p.Client()
	defer client.CloseIdleConnections()
	for _, form := range refusedForms {
		raw := strings.ReplaceAll(form, "{P}", port)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		req, err := http.NewRequestWithContext(ctx, "GET", raw, nil)
		if err == nil {
			var resp *http.Response
			resp, err = client.Do(req)
			if resp != nil {
				resp.Body.Close()
			}
		} else {
			// net/http cannot even build it; the policy must agree.
			if _, cerr := Check(raw); cerr == nil {
				t.Errorf("%s: Check accepted what net/http refuses (%v)", raw, err)
			}
			cancel()
			continue
		}
		cancel()
		if !errors.Is(err, ErrRefused) {
			t.Errorf("%s: err %v; want a policy refusal", raw, err)
			continue
		}
		msg := SafeMessage(err)
		if strings.Contains(msg, "pw") || strings.Contains(msg, "meta-data") || strings.Contains(msg, "@") {
			t.Errorf("%s: message %q shows userinfo or path", raw, msg)
		}
	}
	if n := v4.accepted.Load() + v6.accepted.Load(); n != 0 {
		t.Fatalf("%d connections reached a refused loopback listener", n)
	}
}

// TestRedirectsToRefusedTargets starts at an allowed loopback server (test
// allowance on) and redirects to targets that stay refused; the landing
// handler must never run and each refusal has the expected class.
func TestRedirectsToRefusedTargets(t *testing.T) {
	var landed atomic.Int64
	mux := http.NewServeMux()
	mux.HandleFunc("/r", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", r.URL.Query().Get("to"))
		w.WriteHeader(http.StatusFound)
	})
	mux.HandleFunc("/loop-a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop-b", http.StatusFound) })
	mux.HandleFunc("/loop-b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop-a", http.StatusFound) })
	mux.HandleFunc("/chain/", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Path+"x", http.StatusFound)
	})
	mux.HandleFunc("/landing", func(w http.ResponseWriter, r *http.Request) { landed.Add(1) })
	_, port := server(t, mux)
	var log decisionLog
	p := New(Options{Resolver: corpusResolver, AllowLoopbackForTests: true, DialTimeout: time.Second, OnDecision: log.add})
	client := p.Client()
	defer client.CloseIdleConnections()
	base := "http://site.test:" + port
	cases := []struct{ path, class string }{
		{"/r?to=http://10.0.0.1:" + port + "/landing", ClassPrivate},
		{"/r?to=http://169.254.169.254/latest/meta-data/", ClassMetadata},
		{"/r?to=http://0xa9fea9fe/landing", ClassMetadata},
		{"/r?to=http://[fd00:ec2::254]/landing", ClassMetadata},
		{"/r?to=http://[::ffff:169.254.169.254]/landing", ClassMetadata},
		{"/r?to=http://meta.test/landing", ClassMetadata},
		{"/r?to=http://priv.test:" + port + "/landing", ClassPrivate},
		{"/r?to=http://mixedpriv.test:" + port + "/landing", "mixed-answer"},
		{"/r?to=http://nxdomain.test/landing", "dns-failure"},
		{"/r?to=http://user:pw@site.test:" + port + "/landing", "userinfo"},
		{"/r?to=ftp://site.test/landing", "scheme"},
		{"/r?to=http://metadata.google.internal/landing", ClassMetadata},
		{"/loop-a", "redirect-loop"},
		{"/chain/x", "redirect"},
	}
	for _, c := range cases {
		// Each request has its own deadline: with the redirect checks
		// broken, a loop would otherwise run until the go test timeout.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+c.path, nil)
		resp, err := client.Do(req)
		cancel()
		if resp != nil {
			resp.Body.Close()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: no refusal within 10s (a redirect loop followed?)", c.path)
			continue
		}
		var re *RefusedError
		if !errors.As(err, &re) || re.Class != c.class {
			t.Errorf("%s: err %v; want class %s", c.path, err, c.class)
		}
	}
	if n := landed.Load(); n != 0 {
		t.Errorf("landing reached %d times", n)
	}
	refusedHops := 0
	for _, d := range log.all() {
		if !d.Allowed {
			refusedHops++
			if d.Phase != "redirect" || d.Class == "" || d.Reason == "" {
				t.Errorf("refused hop reported as %+v", d)
			}
		}
		if strings.Contains(d.Origin, "meta-data") || strings.Contains(d.Origin, "pw@") {
			t.Errorf("decision %+v shows a path or userinfo", d)
		}
	}
	if refusedHops != len(cases) {
		t.Errorf("%d refused hops reported to OnDecision; want one per case (%d)", refusedHops, len(cases))
	}
}

func TestCheckRedirectDowngradeAndHeaders(t *testing.T) {
	p := New(Options{})
	first, _ := http.NewRequest("GET", "https://a.example/x", nil)
	down, _ := http.NewRequest("GET", "http://a.example/y", nil)
	var re *RefusedError
	if err := p.checkRedirect(down, []*http.Request{first}); !errors.As(err, &re) || re.Class != "redirect" {
		t.Errorf("https → http: %v; want a redirect refusal", err)
	}
	same, _ := http.NewRequest("GET", "https://a.example/z", nil)
	same.Header.Set("Authorization", "Bearer t")
	same.Header.Set("Referer", "https://a.example/x?token=1")
	if err := p.checkRedirect(same, []*http.Request{first}); err != nil {
		t.Fatal(err)
	}
	if same.Header.Get("Authorization") == "" || same.Header.Get("Referer") != "" {
		t.Errorf("same-origin hop headers %v: want Authorization kept, Referer dropped", same.Header)
	}
	other, _ := http.NewRequest("GET", "https://b.example/z", nil)
	other.Header.Set("Authorization", "Bearer t")
	other.Header.Set("X-Session", "s")
	other.Header.Set("Accept", "text/html")
	if err := p.checkRedirect(other, []*http.Request{first}); err != nil {
		t.Fatal(err)
	}
	if len(other.Header) != 1 || other.Header.Get("Accept") != "text/html" {
		t.Errorf("cross-origin hop headers %v: want only Accept", other.Header)
	}
	many := make([]*http.Request, 6)
	for i := range many {
		many[i] = first
	}
	if err := New(Options{}).checkRedirect(other, many); !errors.As(err, &re) || re.Class != "redirect" {
		t.Errorf("7th redirect: %v; want refused", err)
	}
}
