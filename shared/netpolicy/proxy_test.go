package netpolicy

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
)

// proxyHelperEnv carries the target server's port to the helper process
// of TestNoAmbientProxy.
const proxyHelperEnv = "NETPOLICY_TEST_PROXY_HELPER_PORT"

// TestNoAmbientProxy: HTTP_PROXY, HTTPS_PROXY and ALL_PROXY in the
// environment are not used: the request goes straight to the verified
// address and the proxy is never connected to. The client runs in a
// child process because net/http reads the proxy variables once per
// process, so t.Setenv here could come too late to matter.
func TestNoAmbientProxy(t *testing.T) {
	var direct, proxied atomic.Int64
	proxy, proxyPort := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		io.WriteString(w, "via the proxy")
	}))
	target, port := server(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		direct.Add(1)
		io.WriteString(w, "direct")
	}))
	proxyURL := "http://127.0.0.1:" + proxyPort
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAmbientProxyClient$", "-test.v")
	cmd.Env = append(os.Environ(), proxyHelperEnv+"="+port,
		"HTTP_PROXY="+proxyURL, "http_proxy="+proxyURL, "HTTPS_PROXY="+proxyURL, "https_proxy="+proxyURL,
		"ALL_PROXY="+proxyURL, "all_proxy="+proxyURL, "NO_PROXY=", "no_proxy=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the client in the helper process: %v\n%s", err, out)
	}
	if n := proxy.accepted.Load(); n != 0 || proxied.Load() != 0 {
		t.Errorf("the ambient proxy was connected to %d times", n)
	}
	if direct.Load() != 1 || target.accepted.Load() == 0 {
		t.Errorf("the server saw %d requests over %d connections; want the one request, direct", direct.Load(), target.accepted.Load())
	}
}

// TestHelperAmbientProxyClient is not a test: TestNoAmbientProxy runs it
// in a child process whose environment names a proxy.
func TestHelperAmbientProxyClient(t *testing.T) {
	port := os.Getenv(proxyHelperEnv)
	if port == "" {
		t.Skip("helper process for TestNoAmbientProxy")
	}
	url := "http://site.test:" + port + "/"
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The environment does name a proxy for this request: a client that
	// honoured it would use it.
	if u, err := http.ProxyFromEnvironment(req); err != nil || u == nil {
		t.Fatalf("the environment names no proxy for %s (%v, %v): the test proves nothing", url, u, err)
	}
	c := New(Options{Resolver: mapResolver{"site.test": {"127.0.0.1"}}, AllowLoopbackForTests: true}).Client()
	defer c.CloseIdleConnections()
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "direct" {
		t.Fatalf("answered %q; want the server's own answer", body)
	}
}
