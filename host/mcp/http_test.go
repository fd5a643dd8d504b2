package mcp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/shared/netpolicy"
)

// decisions collects the URL policy's verdicts.
type decisions struct {
	mu   sync.Mutex
	list []netpolicy.Decision
}

func (d *decisions) add(_ string, dec netpolicy.Decision) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = append(d.list, dec)
}

func (d *decisions) all() []netpolicy.Decision {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]netpolicy.Decision(nil), d.list...)
}

// startHTTPServer runs a test server binary with -http on a loopback port
// and returns its URL.
func startHTTPServer(t *testing.T, bin string, env ...string) string {
	t.Helper()
	cmd := exec.Command(bin, "-http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

// TestHTTPServer: a streamable HTTP server on loopback, reached through
// the URL policy's test-only loopback hook: discovery, a call through
// dispatch, header values never shown, and one request-phase decision per
// HTTP request.
func TestHTTPServer(t *testing.T) {
	var dec decisions
	f := newFixture(t, func(c *Config) {
		c.Net = netpolicy.Options{AllowLoopbackForTests: true}
		c.OnURLDecision = dec.add
	})
	url := startHTTPServer(t, filepath.Join(f.bins, "echo"))
	mcptest.Manifest(t, f.mcpDir, "web", "url: "+url+"?tenant=qs-secret-777\nheaders: {X-Api-Key: hdr-secret-5555}\n")
	f.ask.allow(ConnectTool("web"))
	r := f.resolve()
	st := state(t, r, "web")
	if st.Status != StatusConnected || len(st.Tools) != 4 || st.Transport != "http" {
		t.Fatalf("%+v", st)
	}
	turn := f.dispatchTurn(r, "web__echo")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "web__echo", Args: []byte(`{"text":"over http"}`)})
	if !out.OK() || unwrapped(out.Views.Model.String()) != "over http" {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	got := dec.all()
	if len(got) < 3 { // initialize, initialized, tools/list, tools/call
		t.Fatalf("%d decisions", len(got))
	}
	for _, d := range got {
		if d.Phase != "request" || !d.Allowed || d.Origin != strings.TrimSuffix(url, "/mcp") || len(d.Addrs) != 1 {
			t.Fatalf("%+v", d)
		}
		if s := fmt.Sprintf("%+v", d); strings.Contains(s, "qs-secret") || strings.Contains(s, "/mcp") {
			t.Fatalf("decision shows path or query: %s", s)
		}
	}
}

// countingListener accepts and counts connections on loopback.
func countingListener(t *testing.T) (port int, accepted *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted = new(atomic.Int32)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().(*net.TCPAddr).Port, accepted
}

// acceptedBeforeSentinel dials the counting listener itself and waits,
// with a deadline, until that connection is counted; it returns how many
// were accepted before it.
func acceptedBeforeSentinel(t *testing.T, port int, accepted *atomic.Int32) int32 {
	t.Helper()
	c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// The accept loop counts, then closes: EOF on our side means counted.
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Fatalf("the listener did not accept and close the sentinel connection within 10s: %v", err)
	}
	return accepted.Load() - 1
}

// fakeResolver answers names from a table, as DNS would.
type fakeResolver map[string][]netip.Addr

func (r fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// TestHTTPRefusedTargetsNeverDialed: without the test hook, URLs that
// reach loopback in any spelling, names resolving to refused addresses,
// mixed answers and DNS failures fail the server, and no connection ever
// reaches the listener. (The policy's full corpus is shared/netpolicy's.)
func TestHTTPRefusedTargetsNeverDialed(t *testing.T) {
	port, accepted := countingListener(t)
	res := fakeResolver{
		"loop.test":     {netip.MustParseAddr("127.0.0.1")},
		"mixed.test":    {netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("127.0.0.1")},
		"metadata.test": {netip.MustParseAddr("169.254.169.254")},
		"mapped.test":   {netip.MustParseAddr("::ffff:127.0.0.1")},
	}
	var dec decisions
	f := newFixture(t, func(c *Config) {
		c.Net = netpolicy.Options{Resolver: res}
		c.OnURLDecision = dec.add
	})
	p := fmt.Sprint(port)
	targets := map[string]string{
		"dotted":   "http://127.0.0.1:" + p + "/mcp",
		"integer":  "http://2130706433:" + p + "/mcp",
		"hex":      "http://0x7f.1:" + p + "/mcp",
		"octal":    "http://0177.0.0.1:" + p + "/mcp",
		"short":    "http://127.1:" + p + "/mcp",
		"v6":       "http://[::1]:" + p + "/mcp",
		"v4mapped": "http://[::ffff:127.0.0.1]:" + p + "/mcp",
		"local":    "http://localhost:" + p + "/mcp",
		"name":     "http://loop.test:" + p + "/mcp",
		"mixed":    "http://mixed.test:" + p + "/mcp",
		"meta":     "http://metadata.test:" + p + "/mcp",
		"mapname":  "http://mapped.test:" + p + "/mcp",
		"nxdomain": "http://nowhere.test:" + p + "/mcp",
		"zero":     "http://0.0.0.0:" + p + "/mcp",
		"query":    "http://nowhere.test:" + p + "/mcp?token=qsecret-abc-123",
	}
	for id, u := range targets {
		mcptest.Manifest(t, f.mcpDir, id, "url: "+u+"\nconnect_timeout_seconds: 2\n")
		f.ask.allow(ConnectTool(id))
	}
	r := f.resolve()
	for id := range targets {
		if strings.Contains(state(t, r, id).Diagnostic, "qsecret-abc-123") {
			t.Errorf("%s: diagnostic shows a URL query value: %s", id, state(t, r, id).Diagnostic)
		}
		if st := state(t, r, id); st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "refused") && !strings.Contains(st.Diagnostic, "not allowed") {
			t.Errorf("%s: %+v", id, st)
		}
	}
	// A connection the refused targets made would be queued for accept
	// before this one (the accept queue is FIFO): once ours is counted,
	// every earlier one has been.
	if n := acceptedBeforeSentinel(t, port, accepted); n != 0 {
		t.Fatalf("the listener accepted %d connections", n)
	}
	origins := map[string]bool{}
	for _, d := range dec.all() {
		if d.Allowed {
			t.Errorf("allowed: %+v", d)
		}
		origins[d.Origin] = true
	}
	// Every refusal is audited, also those refused before any request.
	// The five IPv4 spellings normalise to one origin; two targets share
	// nowhere.test.
	if len(origins) != len(targets)-5 {
		t.Errorf("%d audited origins for %d targets: %v", len(origins), len(targets), origins)
	}
}

// TestHTTPRedirectToRefusedTarget: a server that redirects to a refused
// address is not followed there.
func TestHTTPRedirectToRefusedTarget(t *testing.T) {
	port, accepted := countingListener(t)
	redirect := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, fmt.Sprintf("http://10.0.0.1:%d/mcp", port), http.StatusTemporaryRedirect)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go redirect.Serve(ln)
	t.Cleanup(func() { redirect.Close() })
	var dec decisions
	f := newFixture(t, func(c *Config) {
		c.Net = netpolicy.Options{AllowLoopbackForTests: true}
		c.OnURLDecision = dec.add
	})
	mcptest.Manifest(t, f.mcpDir, "redir", fmt.Sprintf("url: http://%s/mcp\nconnect_timeout_seconds: 2\n", ln.Addr()))
	f.ask.allow(ConnectTool("redir"))
	if st := state(t, f.resolve(), "redir"); st.Status != StatusFailed {
		t.Fatalf("%+v", st)
	}
	if accepted.Load() != 0 {
		t.Fatal("followed the redirect")
	}
	var sawRefusedHop bool
	for _, d := range dec.all() {
		sawRefusedHop = sawRefusedHop || (d.Phase == "redirect" && !d.Allowed)
	}
	if !sawRefusedHop {
		t.Fatalf("no refused redirect decision in %+v", dec.all())
	}
}
