package mcp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/shared/netpolicy"
)

// Values a careless server echoes back. None looks like a credential, so
// only the host's redaction against the declaration can hide them.
const (
	envValue = "mauve-otter-1717"
	argValue = "violet-heron-2323"
)

// scripted declares the scripted test server with its script (arguments
// such as "hang-at=tools/list"), then a secret-looking argument and an env
// value, both of which it echoes; env adds env entries ("KEY: value, ..."),
// extra manifest lines.
func (f *fixture) scripted(id, script, env, extra string) {
	f.t.Helper()
	if env != "" {
		env = ", " + env
	}
	args := ""
	if script != "" {
		args = script + ", "
	}
	f.server(id, "scripted", "args: ["+args+"--api-key, "+argValue+"]\nenv: {ECHO_TOKEN: "+envValue+env+"}\n"+extra)
}

// noEcho fails the test when text shows a declared value, or lacks the
// redaction marks that stand in for them.
func noEcho(t *testing.T, what, text string, values ...string) {
	t.Helper()
	for _, v := range values {
		if strings.Contains(text, v) {
			t.Errorf("%s shows %q: %s", what, v, text)
		}
	}
	if !strings.Contains(text, "<redacted:") {
		t.Errorf("%s has no redaction mark: %s", what, text)
	}
}

// TestConnectErrorsRedacted: a stdio server whose error in initialize or
// tools/list quotes its env and argument values fails with a diagnostic
// that shows neither.
func TestConnectErrorsRedacted(t *testing.T) {
	f := newFixture(t)
	f.scripted("initerr", "error-at=initialize", "", "")
	f.scripted("listerr", "error-at=tools/list", "", "")
	f.ask.allow(ConnectTool("initerr"), ConnectTool("listerr"))
	r := f.resolve()
	for id, step := range map[string]string{"initerr": "initialize", "listerr": "tools/list"} {
		st := state(t, r, id)
		if st.Status != StatusFailed || !strings.HasPrefix(st.Diagnostic, step+": ") || !strings.Contains(st.Diagnostic, step+" refused; I was configured with") {
			t.Errorf("%s: %+v", id, st)
		}
		noEcho(t, id+"'s diagnostic", st.Diagnostic, envValue, argValue)
		if !strings.Contains(st.Diagnostic, "<redacted:env:ECHO_TOKEN>") {
			t.Errorf("%s: the env value is not marked as such: %s", id, st.Diagnostic)
		}
	}
}

// TestCallErrorRedacted: a tool call answered with a JSON-RPC error that
// quotes the server's env and argument values reaches every view with
// both replaced.
func TestCallErrorRedacted(t *testing.T) {
	f := newFixture(t)
	f.scripted("s", "", "", "")
	f.ask.allow(ConnectTool("s"))
	r := f.resolve()
	if st := state(t, r, "s"); st.Status != StatusConnected {
		t.Fatalf("%+v", st)
	}
	turn := f.dispatchTurn(r, "s__t")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "s__t", Args: []byte(`{}`)})
	if out.Status != dispatch.StatusFailed || !strings.Contains(unwrapped(out.Views.Model.String()), "tools/call refused") {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	noEcho(t, "the model view", unwrapped(out.Views.Model.String()), envValue, argValue)
	noEcho(t, "the views", fmt.Sprintf("%+v", out.Views), envValue, argValue)
}

// TestHTTPErrorRedacted: an HTTP server whose 500 reply quotes the
// request's header values and URL query fails with a diagnostic that
// shows none of them.
func TestHTTPErrorRedacted(t *testing.T) {
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprintf(w, "cannot serve key=%s auth=%s query=%s tenant=%s",
			r.Header.Get("X-Api-Key"), r.Header.Get("Authorization"), r.URL.RawQuery, r.URL.Query().Get("tenant"))
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	f := newFixture(t, func(c *Config) { c.Net = netpolicy.Options{AllowLoopbackForTests: true} })
	mcptest.Manifest(t, f.mcpDir, "web", fmt.Sprintf("url: http://%s/mcp?tenant=plum-finch-3131&region=north\nheaders: {X-Api-Key: teal-crane-4141, Authorization: Bearer amber-stoat-5151}\nconnect_timeout_seconds: 5\n", ln.Addr()))
	f.ask.allow(ConnectTool("web"))
	st := state(t, f.resolve(), "web")
	if st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "cannot serve") {
		t.Fatalf("%+v", st)
	}
	noEcho(t, "the diagnostic", st.Diagnostic, "plum-finch-3131", "teal-crane-4141", "amber-stoat-5151", "region=north")
	for _, mark := range []string{"<redacted:header:X-Api-Key>", "<redacted:header:Authorization>", "<redacted:url.query"} {
		if !strings.Contains(st.Diagnostic, mark) {
			t.Errorf("no %s in %s", mark, st.Diagnostic)
		}
	}
}
