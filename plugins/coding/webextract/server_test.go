package webextract

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"demiurge.dev/shared/netpolicy"
)

// articleHTML is a real-looking page: chrome around a main article.
const articleHTML = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Release notes 2.0</title>
<link rel="stylesheet" href="/s.css"><style>main{max-width:40em}</style>
<script>window.analytics = {token: "do-not-show"};</script></head>
<body><header><a href="/">Example</a><nav><a href="/docs">Docs</a><a href="/blog">Blog</a></nav></header>
<aside><h3>Ads</h3><p>Buy things</p></aside>
<main><article><h1>Release 2.0</h1><p>This release adds <em>streaming</em> and fixes <a href="/issues/42">issue 42</a>.</p>
<h2>Upgrading</h2><ol><li>Stop the service.</li><li>Install the package.</li></ol>
<pre>make install
make test</pre></article></main>
<footer><p>Copyright Example Ltd</p></footer></body></html>`

// testServer is a real HTTP server on loopback whose listener counts the
// connections it accepts.
type testServer struct {
	port     string
	accepted atomic.Int64
	slowDone chan struct{}
}

type countingListener struct {
	net.Listener
	n *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

func startServer(t *testing.T) *testServer {
	t.Helper()
	ts := &testServer{slowDone: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("/article", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, articleHTML)
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/article?from=redirect", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/to-other", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://other.test:"+ts.port+"/article", http.StatusFound)
	})
	mux.HandleFunc("/loop-a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop-b", http.StatusFound) })
	mux.HandleFunc("/loop-b", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop-a", http.StatusFound) })
	for path, target := range map[string]string{
		"/to-private":  "http://10.0.0.1/admin",
		"/to-metadata": "http://169.254.169.254/latest/meta-data/iam",
		"/to-mapped":   "http://[::ffff:169.254.169.254]/",
		"/to-name":     "http://internal.test/",
		"/to-userinfo": "http://user:pw@site.test/",
		"/to-file":     "file:///etc/passwd",
	} {
		mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", target)
			w.WriteHeader(http.StatusFound)
		})
	}
	mux.HandleFunc("/slow-body", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body><main><p>First part arrives.</p>")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-ts.slowDone:
		}
	})
	mux.HandleFunc("/slow-headers", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-ts.slowDone:
		}
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", fmt.Sprint(hugeSize))
		writeHuge(w, hugeSize)
	})
	mux.HandleFunc("/gzip-bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(gzipBomb())
	})
	mux.HandleFunc("/image", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
	})
	mux.HandleFunc("/octet", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		fmt.Fprint(w, articleHTML)
	})
	mux.HandleFunc("/untyped", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil // no declared type: sniffed
		fmt.Fprint(w, articleHTML)
	})
	mux.HandleFunc("/plain", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "line one\nline two\n")
	})
	mux.HandleFunc("/latin1", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=iso-8859-1")
		w.Write([]byte("<p>caf\xe9 cr\xe8me</p>"))
	})
	mux.HandleFunc("/missing", http.NotFound)
	mux.HandleFunc("/broken", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "boom", http.StatusInternalServerError)
	})
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	_, ts.port, _ = net.SplitHostPort(l.Addr().String())
	srv := &http.Server{Handler: mux}
	go srv.Serve(countingListener{Listener: l, n: &ts.accepted})
	t.Cleanup(func() {
		close(ts.slowDone)
		srv.Close()
	})
	return ts
}

const hugeSize = 12 << 20

func writeHuge(w interface{ Write([]byte) (int, error) }, size int) {
	head := "<html><head><title>Huge</title></head><body><main>"
	para := "<p>" + strings.Repeat("lorem ipsum dolor sit amet ", 36) + "</p>\n"
	w.Write([]byte(head))
	n := len(head)
	for n+len(para) <= size {
		w.Write([]byte(para))
		n += len(para)
	}
	w.Write(bytes.Repeat([]byte(" "), size-n))
}

// gzipBomb is 64 MiB of text compressed to a few dozen KiB, made on first
// use (not in every test process, the benchmark's child included).
var gzipBomb = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	line := bytes.Repeat([]byte("a"), 1023)
	line = append(line, '\n')
	for i := 0; i < 64<<10; i++ {
		z.Write(line)
	}
	z.Close()
	return b.Bytes()
})

// mapResolver is the test-only resolver: names to fixed addresses.
type mapResolver map[string][]string

func (m mapResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := m[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	out := make([]netip.Addr, len(a))
	for i, s := range a {
		out[i] = netip.MustParseAddr(s)
	}
	return out, nil
}

// testOptions reach the loopback server through the URL policy's test
// hooks; internal.test resolves to a private address, which stays refused.
func testOptions() Options {
	return Options{
		Policy: netpolicy.Options{
			Resolver: mapResolver{
				"site.test":     {"127.0.0.1"},
				"other.test":    {"127.0.0.1"},
				"internal.test": {"10.1.2.3"},
			},
			AllowLoopbackForTests: true,
		},
		Timeout: 10 * time.Second,
	}
}
