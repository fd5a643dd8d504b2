package packages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/packages"
	"demiurge.dev/host/packages/packagetest"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
)

// provider is one web_search package and the loopback server that speaks
// its API's documented wire format.
type provider struct {
	name, env, key string
	// serve answers a search whose key arrived in the documented header;
	// echo puts the key into a result snippet, as a hostile or broken
	// provider might.
	serve func(t *testing.T, got chan<- string, echo bool) http.Handler
}

var providers = []provider{
	{name: "web_search_brave", env: "BRAVE_API_KEY", key: "BSA-e2e-secret-4f1c9a7d2b",
		serve: func(t *testing.T, got chan<- string, echo bool) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodGet || r.URL.Path != "/res/v1/web/search" || r.URL.Query().Get("q") == "" {
					http.Error(w, "not the Brave API", http.StatusNotFound)
					return
				}
				got <- "X-Subscription-Token=" + r.Header.Get("X-Subscription-Token")
				snippet := "The Go programming language."
				if echo {
					snippet += " token " + r.Header.Get("X-Subscription-Token")
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"type":"search","query":{"original":%q},"web":{"type":"search","results":[{"title":"The Go Programming Language","url":"https://go.dev/","description":%q,"age":"1 day ago"}]}}`, r.URL.Query().Get("q"), snippet)
			})
		}},
	{name: "web_search_tavily", env: "TAVILY_API_KEY", key: "tvly-e2e-secret-8e2d6b3a91",
		serve: func(t *testing.T, got chan<- string, echo bool) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				var body struct {
					Query string `json:"query"`
				}
				if r.Method != http.MethodPost || r.URL.Path != "/search" || json.NewDecoder(r.Body).Decode(&body) != nil || body.Query == "" {
					http.Error(w, `{"detail":{"error":"not the Tavily API"}}`, http.StatusBadRequest)
					return
				}
				got <- "Authorization=" + r.Header.Get("Authorization")
				snippet := "The Go programming language."
				if echo {
					snippet += " token " + strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				}
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, `{"query":%q,"answer":null,"images":[],"results":[{"title":"The Go Programming Language","url":"https://go.dev/","content":%q,"score":0.93,"raw_content":null}],"response_time":"0.8"}`, body.Query, snippet)
			})
		}},
}

// TestSecretBoundToOneCall installs each provider package into a core,
// points it at a loopback server that speaks its API, and calls
// web_search through the host's one call path: the key arrives in the
// documented header, and is in neither the plugin's environment, nor any
// view of the result, nor the audit log.
func TestSecretBoundToOneCall(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			// The real plugin, built with the demiurgetest tag that lets
			// its endpoint be pointed at the loopback server.
			archive, sum, err := packagetest.Build(t.TempDir(), p.name, "demiurgetest")
			if err != nil {
				t.Fatal(err)
			}
			got := make(chan string, 8)
			echo := false
			var mu sync.Mutex
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				e := echo
				mu.Unlock()
				p.serve(t, got, e).ServeHTTP(w, r)
			}))
			defer srv.Close()

			coreDir := t.TempDir()
			os.WriteFile(filepath.Join(coreDir, core.FileName), []byte("name: e2e\ntoolsets: []\ncapabilities: [network.fetch]\n"), 0o644)
			c, err := core.Load(coreDir)
			if err != nil {
				t.Fatal(err)
			}
			state := t.TempDir()
			if _, err := packages.New(state, c).InstallGranting(archive, sum, []string{packages.GrantPrefix + p.env}); err != nil {
				t.Fatal(err)
			}
			// The test-only endpoint override: a file in the plugin's
			// host-owned HOME (a package's private runtime directory), read
			// only by demiurgetest builds; the confined plugin reaches the
			// loopback server only through its egress proxy, by the
			// operator's exact allowance of its address.
			home := filepath.Join(state, "runtime", "packages", p.name)
			os.MkdirAll(home, 0o700)
			t.Setenv(plugins.EnvPackagePorts, srv.URL[strings.LastIndex(srv.URL, ":")+1:])
			t.Setenv("DEMIURGE_EGRESS_ALLOW_ADDR", strings.TrimPrefix(srv.URL, "http://")) // through the plugin's egress proxy
			endpoint := srv.URL + "/res/v1/web/search"
			if p.name == "web_search_tavily" {
				endpoint = srv.URL + "/search"
			}
			os.WriteFile(filepath.Join(home, p.name+".endpoint"), []byte(endpoint), 0o600)
			t.Setenv(p.env, p.key)

			h, err := toolhost.Open(toolhost.Options{CoreDir: coreDir, Workspace: t.TempDir(), StateDir: state, BuiltinPluginDir: t.TempDir(), Rules: []string{"allow:web_search"}})
			if err != nil {
				t.Fatal(err)
			}
			defer h.Close()
			ctx := context.Background()
			turn, err := h.NewTurn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			call := func(id string) dispatch.Outcome {
				out := turn.Call(ctx, dispatch.ToolCall{ID: id, Name: "web_search", Args: []byte(`{"query":"golang","count":3}`)})
				assertNoSecret(t, p.key, out)
				return out
			}

			out := call("c1")
			if out.Status != dispatch.StatusOK || !strings.Contains(out.Views.Model.String(), "1. The Go Programming Language\n   https://go.dev/") {
				t.Fatalf("status %s: %s", out.Status, out.Views.Model.String())
			}
			wantHeader := "X-Subscription-Token=" + p.key
			if p.name == "web_search_tavily" {
				wantHeader = "Authorization=Bearer " + p.key
			}
			if h := <-got; h != wantHeader {
				t.Fatalf("the server saw %q, want %q", h, wantHeader)
			}

			// The plugin process never had the key in its environment.
			var pid int
			for _, st := range h.Plugins.Statuses() {
				if st.Name == p.name {
					pid = st.PID
				}
			}
			environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			if err != nil || pid == 0 {
				t.Fatalf("plugin pid %d: %v", pid, err)
			}
			if strings.Contains(string(environ), p.key) || strings.Contains(string(environ), p.env) {
				t.Fatalf("the plugin's environment holds the key: %q", environ)
			}

			// A provider that echoes the key: the host redacts it in every view.
			mu.Lock()
			echo = true
			mu.Unlock()
			out = call("c2")
			<-got
			if out.Status != dispatch.StatusOK || !strings.Contains(out.Views.Model.String(), "token <redacted:"+p.env+">") {
				t.Fatalf("echoed key not redacted: %s", out.Views.Model.String())
			}

			// Without the key in the host environment the call is refused
			// before approval: it could not work.
			os.Unsetenv(p.env)
			out = call("c3")
			if out.Status != dispatch.StatusPrecheckFailed || !strings.Contains(out.Views.Model.String(), "no "+p.env+" is set") {
				t.Fatalf("without a key: %s %s", out.Status, out.Views.Model.String())
			}

			// The audit log: every binding recorded, by source and target,
			// and the key nowhere.
			store, err := h.Store()
			if err != nil {
				t.Fatal(err)
			}
			evs, err := store.Events(runtime.EventQuery{})
			if err != nil {
				t.Fatal(err)
			}
			var binds []map[string]any
			for _, ev := range evs {
				b, _ := json.Marshal(ev)
				if strings.Contains(string(b), p.key) {
					t.Fatalf("the audit log holds the key: %s", b)
				}
				if ev.Kind == packages.EventKindSecretBind {
					var d map[string]any
					json.Unmarshal(ev.Data, &d)
					binds = append(binds, d)
				}
			}
			if len(binds) != 2 {
				t.Fatalf("%d secret.bind events, want 2 (the call without a key did not run)", len(binds))
			}
			first := binds[0]["bound"].([]any)[0].(map[string]any)
			if first["source"] != "env:"+p.env || first["target"] != p.env || first["capability"] != "secret.bind:"+p.env || binds[0]["package"] != p.name {
				t.Fatalf("secret.bind event %v", binds[0])
			}
		})
	}
}

// openWithBuiltPackage builds the plugin at pkg as toolset name, packs it
// with manifest, installs the archive into a fresh state directory under a
// core granting caps, and opens a host on them (closed with the test).
func openWithBuiltPackage(t *testing.T, name, pkg, manifest, caps string) *toolhost.Host {
	t.Helper()
	dir := t.TempDir()
	if err := plugintest.Build(dir, name, pkg); err != nil {
		t.Fatal(err)
	}
	archive := filepath.Join(dir, name+".tar.gz")
	sum, err := packagetest.Archive(archive, []byte(manifest), name, filepath.Join(dir, "demiurge-toolset-"+name))
	if err != nil {
		t.Fatal(err)
	}
	coreDir := t.TempDir()
	os.WriteFile(filepath.Join(coreDir, core.FileName), []byte("toolsets: []\ncapabilities: ["+caps+"]\n"), 0o644)
	c, err := core.Load(coreDir)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	m, err := packages.ParseManifest([]byte(manifest))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := packages.New(state, c).InstallGranting(archive, sum, m.Grants()); err != nil {
		t.Fatal(err)
	}
	h, err := toolhost.Open(toolhost.Options{CoreDir: coreDir, Workspace: t.TempDir(), StateDir: state, BuiltinPluginDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func assertNoSecret(t *testing.T, key string, out dispatch.Outcome) {
	t.Helper()
	b, err := json.Marshal(out.Views)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), key) {
		t.Fatalf("a view holds the key: %s", b)
	}
}

// TestLyingManifestIsRefusedAtTheHandshake: a package whose manifest
// claims protocol 1 but whose binary speaks protocol 2 gets past install
// (nothing is run there), and the handshake refuses it at its first start:
// it is left out of the catalog with both versions named.
func TestLyingManifestIsRefusedAtTheHandshake(t *testing.T) {
	manifest := `{"name":"liar","version":"1.0.0","protocol":1,"protocol_minor":0,"module":"demiurge.dev/sdk","tools":["web_search"],"slot":"web_search"}`
	h := openWithBuiltPackage(t, "liar", "demiurge.dev/sdk/testtoolsets/protocol2", manifest, "network.fetch")
	cat, err := h.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup("web_search"); ok {
		t.Fatal("the protocol-2 plugin's tool is in the catalog")
	}
	warned := strings.Join(h.Warnings(), "\n")
	if !strings.Contains(warned, "liar speaks toolset protocol 2; this host speaks protocol 1") {
		t.Fatalf("warnings: %s", warned)
	}
}
