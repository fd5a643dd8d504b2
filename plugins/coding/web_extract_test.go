package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"demiurge.dev/plugins/coding/webextract"
	"demiurge.dev/sdk"
	"demiurge.dev/shared/netpolicy"
)

// nameResolver is the URL policy's test-only resolver hook.
type nameResolver map[string]string

func (m nameResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := m[host]; ok {
		return []netip.Addr{netip.MustParseAddr(a)}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// webServer serves a page, a redirect to a refused address and a 404 on
// loopback.
func webServer(t *testing.T) string {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<html><head><title>Docs</title></head><body><nav>menu</nav><main><h1>Install</h1><p>Run <code>make</code>.</p></main></body></html>`)
	})
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	_, port, _ := net.SplitHostPort(l.Addr().String())
	return "http://docs.test:" + port
}

func testWebExtract() sdk.Tool {
	return newWebExtractWith(webextract.Options{Policy: netpolicy.Options{
		Resolver:              nameResolver{"docs.test": "127.0.0.1"},
		AllowLoopbackForTests: true,
	}})
}

func execWebExtract(t *testing.T, tool sdk.Tool, args any) *sdk.Result {
	t.Helper()
	raw, _ := json.Marshal(args)
	res, err := tool.Execute(&sdk.Context{Context: context.Background()}, raw)
	if err != nil {
		t.Fatalf("web_extract %s: Go error %v; failures must be results", raw, err)
	}
	return res
}

func TestWebExtractSpec(t *testing.T) {
	s := newWebExtract().Spec()
	if s.Effect != sdk.EffectNetwork || s.Metadata.Capability != "network.fetch" || s.Metadata.ApprovalPolicy != "prompt" || s.Metadata.Risk != "medium" {
		t.Errorf("spec %+v", s)
	}
	if len(s.Subjects) != 1 || s.Subjects[0] != sdk.FetchesURL("url") {
		t.Errorf("subjects %+v; want the url argument", s.Subjects)
	}
}

func TestWebExtractExecute(t *testing.T) {
	base := webServer(t)
	tool := testWebExtract()

	res := execWebExtract(t, tool, map[string]any{"url": base + "/page?key=secret#x"})
	if res.IsError {
		t.Fatalf("page: %s", res.Content)
	}
	for _, want := range []string{"Title: Docs", "# Install", "Run make.", "[" + strings.TrimPrefix(base, "") + ": text/html, main content;"} {
		if !strings.Contains(res.Content, want) {
			t.Errorf("content lacks %q:\n%s", want, res.Content)
		}
	}
	if strings.Contains(res.Content, "menu") || strings.Contains(res.Content, "secret") {
		t.Errorf("content shows navigation or the query:\n%s", res.Content)
	}
	r, ok := res.Structured.(webextract.Result)
	if !ok || r.Origin != base || !slices.Equal(r.Addresses, []string{"127.0.0.1"}) {
		t.Errorf("structured %#v", res.Structured)
	}
	meta, _ := json.Marshal(res.Structured)
	if strings.Contains(string(meta), "/page") || strings.Contains(string(meta), "secret") {
		t.Errorf("metadata shows path or query: %s", meta)
	}
	if res.DisplayOutput == nil || !strings.Contains(*res.DisplayOutput, "chars from") {
		t.Errorf("display %v", res.DisplayOutput)
	}

	for _, c := range []struct {
		args map[string]any
		code string
	}{
		{map[string]any{"url": base + "/away"}, "refused"},
		{map[string]any{"url": base + "/loop"}, "redirect_loop"},
		{map[string]any{"url": strings.Replace(base, "http://", "http://u:pw@", 1) + "/page"}, "refused"},
		{map[string]any{"url": "gopher://docs.test/"}, "invalid_url"},
		{map[string]any{"url": base + "/missing"}, "http_status"},
		{map[string]any{"url": base + "/page", "max_chars": -1}, "invalid_argument"},
	} {
		res := execWebExtract(t, tool, c.args)
		if !res.IsError || res.ErrorCode != c.code {
			t.Errorf("%v: is_error %v code %q content %q; want %s", c.args, res.IsError, res.ErrorCode, res.Content, c.code)
		}
		if strings.Contains(res.Content, "pw") || strings.Contains(res.Content, "meta-data") {
			t.Errorf("%v: message shows userinfo or path: %s", c.args, res.Content)
		}
	}
}

// TestWebExtractProductionRefusesLoopback: the registered tool has no test
// hooks, so the same loopback page is refused.
func TestWebExtractProductionRefusesLoopback(t *testing.T) {
	base := webServer(t)
	port := base[strings.LastIndex(base, ":")+1:]
	for _, tool := range Tools() {
		if tool.Spec().Name != "web_extract" {
			continue
		}
		for _, u := range []string{"http://127.0.0.1:" + port + "/page", "http://0x7f.1:" + port + "/page", "http://[::ffff:127.0.0.1]:" + port + "/page", "http://localhost:" + port + "/page"} {
			res := execWebExtract(t, tool, map[string]any{"url": u})
			if !res.IsError || res.ErrorCode != "refused" || !strings.Contains(res.Content, "loopback") {
				t.Errorf("%s: %v %q %q; want refused as loopback", u, res.IsError, res.ErrorCode, res.Content)
			}
		}
		return
	}
	t.Fatal("web_extract is not in Tools()")
}
