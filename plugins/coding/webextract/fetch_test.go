package webextract

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"demiurge.dev/shared/netpolicy"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(rssChildEnv); url != "" {
		runRSSChild(url)
	}
	goleak.VerifyTestMain(m)
}

func TestFetchPages(t *testing.T) {
	ts := startServer(t)
	f := New(testOptions())
	base := "http://site.test:" + ts.port
	cases := []struct {
		path        string
		contains    []string
		absent      []string
		title       string
		contentType string
		redirects   int
		origin      string
	}{
		{
			path:     "/article",
			contains: []string{"# Release 2.0", "adds streaming and fixes [issue 42](http://site.test:" + ts.port + "/issues/42).", "1. Stop the service.", "make install\nmake test"},
			absent:   []string{"do-not-show", "Buy things", "Copyright", "Docs", "max-width"},
			title:    "Release notes 2.0", contentType: "text/html", origin: base,
		},
		{path: "/redirect", contains: []string{"# Release 2.0"}, title: "Release notes 2.0", contentType: "text/html", redirects: 1, origin: base},
		{path: "/untyped", contains: []string{"# Release 2.0"}, title: "Release notes 2.0", contentType: "text/html", origin: base},
		{path: "/plain", contains: []string{"line one\nline two\n"}, contentType: "text/plain", origin: base},
		{path: "/latin1", contains: []string{"café crème"}, contentType: "text/html", origin: base},
	}
	for _, c := range cases {
		r := f.Fetch(context.Background(), base+c.path+"?secret=query#frag", 0)
		if r.Failure != nil {
			t.Errorf("%s: failure %+v", c.path, r.Failure)
			continue
		}
		for _, s := range c.contains {
			if !strings.Contains(r.Text, s) {
				t.Errorf("%s: text lacks %q:\n%s", c.path, s, r.Text)
			}
		}
		for _, s := range c.absent {
			if strings.Contains(r.Text, s) {
				t.Errorf("%s: text has %q", c.path, s)
			}
		}
		if r.Title != c.title || r.ContentType != c.contentType || r.Redirects != c.redirects || r.Origin != c.origin {
			t.Errorf("%s: title %q type %q redirects %d origin %q; want %q %q %d %q", c.path, r.Title, r.ContentType, r.Redirects, r.Origin, c.title, c.contentType, c.redirects, c.origin)
		}
		if !slices.Equal(r.Addresses, []string{"127.0.0.1"}) || r.Status != 200 || r.Truncated {
			t.Errorf("%s: addresses %v status %d truncated %v", c.path, r.Addresses, r.Status, r.Truncated)
		}
		if r.BytesRead <= 0 || r.Chars != r.TotalChars {
			t.Errorf("%s: bytes %d chars %d/%d", c.path, r.BytesRead, r.Chars, r.TotalChars)
		}
	}
}

func TestFetchSoftFailures(t *testing.T) {
	ts := startServer(t)
	f := New(testOptions())
	base := "http://site.test:" + ts.port
	cases := []struct{ url, code, says string }{
		{base + "/missing", "http_status", "404"},
		{base + "/broken", "http_status", "500"},
		{base + "/image", "unsupported_content_type", "image/png"},
		{base + "/octet", "unsupported_content_type", "application/octet-stream"},
		{base + "/loop-a", "redirect_loop", "loop"},
		{base + "/to-private", "refused", "private"},
		{base + "/to-metadata", "refused", "metadata"},
		{base + "/to-mapped", "refused", "metadata"},
		{base + "/to-name", "redirect_elsewhere", "another origin, http://internal.test,"},
		{base + "/to-userinfo", "refused", "credentials"},
		{base + "/to-file", "invalid_url", "http"},
		{"http://nowhere.test:" + ts.port + "/", "refused", "does not resolve"},
		{base + "/slow-headers", "timeout", "site.test"},
	}
	short := testOptions()
	short.Timeout = 300 * time.Millisecond
	for _, c := range cases {
		fetcher := f
		if c.code == "timeout" {
			fetcher = New(short)
		}
		r := fetcher.Fetch(context.Background(), c.url, 0)
		if r.Failure == nil || r.Failure.Code != c.code || !strings.Contains(r.Failure.Message, c.says) {
			t.Errorf("%s: %+v; want code %s saying %q", c.url, r.Failure, c.code, c.says)
			continue
		}
		for _, leak := range []string{"/admin", "meta-data", "pw@", "/etc/passwd", "/missing", "/loop"} {
			if strings.Contains(r.Failure.Message, leak) || strings.Contains(r.Origin, leak) {
				t.Errorf("%s: %q / origin %q shows a path or userinfo", c.url, r.Failure.Message, r.Origin)
			}
		}
	}
}

// TestFetchRefusesBeforeConnecting: bad input never opens a connection.
func TestFetchRefusesBeforeConnecting(t *testing.T) {
	ts := startServer(t)
	f := New(testOptions())
	for _, c := range []struct{ url, code string }{
		{"http://user:pw@site.test:" + ts.port + "/article", "refused"},
		{"ftp://site.test:" + ts.port + "/article", "invalid_url"},
		{"file:///etc/passwd", "invalid_url"},
		{"http://site.test:" + ts.port + "\\@evil.test/", "invalid_url"},
		{"http://internal.test:" + ts.port + "/", "refused"},
		{"http://169.254.169.254:" + ts.port + "/", "refused"},
		{"not a url", "invalid_url"},
	} {
		r := f.Fetch(context.Background(), c.url, 0)
		if r.Failure == nil || r.Failure.Code != c.code {
			t.Errorf("%s: %+v; want %s", c.url, r.Failure, c.code)
		}
		if strings.Contains(r.Origin, "pw") {
			t.Errorf("%s: origin %q", c.url, r.Origin)
		}
	}
	if n := ts.accepted.Load(); n != 0 {
		t.Errorf("%d connections were opened for refused input", n)
	}
}

func TestFetchCaps(t *testing.T) {
	ts := startServer(t)
	base := "http://site.test:" + ts.port

	// A slow body: what arrived before the timeout, marked as cut.
	opts := testOptions()
	opts.Timeout = 300 * time.Millisecond
	r := New(opts).Fetch(context.Background(), base+"/slow-body", 0)
	if r.Failure != nil || !strings.Contains(r.Text, "First part arrives.") || !slices.Contains(r.StoppedBy, "timeout") || !r.Truncated {
		t.Errorf("slow body: %+v text %q", r, r.Text)
	}

	// A huge body: read up to the byte cap, counts honest.
	f := New(testOptions())
	r = f.Fetch(context.Background(), base+"/huge", 500)
	if r.Failure != nil || r.BytesRead != DefaultMaxBytes || r.ContentLength != hugeSize || !r.Truncated ||
		!slices.Equal(r.StoppedBy, []string{"byte_cap", "max_chars"}) || r.Chars != 500 || r.TotalChars <= r.Chars || !r.FromMain {
		t.Errorf("huge: %+v", r)
	}

	// A gzip bomb is capped after decompression.
	r = f.Fetch(context.Background(), base+"/gzip-bomb", 1000)
	if r.Failure != nil || r.BytesRead != DefaultMaxBytes || !slices.Contains(r.StoppedBy, "byte_cap") {
		t.Errorf("gzip bomb: %+v", r)
	}

	// max_chars beyond the maximum is clamped, not an error.
	if got := clampChars(MaxMaxChars * 10); got != MaxMaxChars {
		t.Errorf("clampChars = %d", got)
	}
}

// TestARedirectToAnotherHostIsNotFollowed: the operator approves a fetch
// seeing its origin only (never the path or query, which could name where
// an open redirect sends it), so a redirect to another host is answered
// with where it points, not followed: fetching from there is another call
// and another approval. A redirect within the host is followed.
func TestARedirectToAnotherHostIsNotFollowed(t *testing.T) {
	ts := startServer(t)
	f := New(testOptions())
	base := "http://site.test:" + ts.port
	r := f.Fetch(context.Background(), base+"/to-other?secret=query", 0)
	if r.Failure == nil || r.Failure.Code != "redirect_elsewhere" || r.Failure.Next != "http://other.test:"+ts.port+"/article" {
		t.Fatalf("failure %+v", r.Failure)
	}
	if r.Origin != base || r.Redirects != 0 || r.Text != "" || r.Title != "" {
		t.Fatalf("the other host was fetched: origin %q redirects %d title %q", r.Origin, r.Redirects, r.Title)
	}
	b, err := json.Marshal(r)
	if err != nil || strings.Contains(string(b), "/article") || strings.Contains(string(b), "secret") {
		t.Fatalf("the structured result holds more than origins: %s", b)
	}
	if r := f.Fetch(context.Background(), base+"/redirect", 0); r.Failure != nil || r.Redirects != 1 || r.Origin != base {
		t.Fatalf("a redirect within the host: %+v", r)
	}
}

// TestARedirectToAnotherPortIsNotFollowed: the approved origin is the
// scheme, host and port the card shows; a redirect from it to another
// port of the same host (a service the operator never saw, such as
// 6379 on the page's server) is another origin, answered and not
// followed. Stop 52 found it followed, its text wrapped under the
// approved origin. http to https on the default ports stays followed.
func TestARedirectToAnotherPortIsNotFollowed(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprint(w, "OTHER-PORT-SERVICE")
	}))
	defer other.Close()
	otherPort := other.URL[strings.LastIndex(other.URL, ":")+1:]
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://site.test:"+otherPort+"/admin", http.StatusFound)
	}))
	defer first.Close()
	base := "http://site.test:" + first.URL[strings.LastIndex(first.URL, ":")+1:]
	r := New(testOptions()).Fetch(context.Background(), base+"/", 0)
	if r.Failure == nil || r.Failure.Code != "redirect_elsewhere" || r.Failure.Next != "http://site.test:"+otherPort+"/admin" {
		t.Fatalf("failure %+v, text %q", r.Failure, r.Text)
	}
	if strings.Contains(r.Text, "OTHER-PORT") || r.Origin != base {
		t.Fatalf("the other port was fetched: origin %q text %q", r.Origin, r.Text)
	}
	for _, c := range []struct {
		from, to string
		same     bool
	}{
		{"http://a.test/", "https://a.test/x", true},
		{"http://a.test:80/", "https://a.test:443/x", true},
		{"https://a.test/", "https://a.test:8443/x", false},
		{"http://a.test:8080/", "https://a.test/x", false},
		{"http://a.test:8080/", "http://a.test:8080/x", true},
		{"http://a.test/", "http://b.test/x", false},
	} {
		from, _ := netpolicy.Parse(c.from)
		to, _ := netpolicy.Parse(c.to)
		if got := sameApproval(from, to); got != c.same {
			t.Errorf("%s → %s: same approval %v, want %v", c.from, c.to, got, c.same)
		}
	}
}
