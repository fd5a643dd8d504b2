package packages_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/packages"
	"demiurge.dev/host/packages/packagetest"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/sandbox"
)

// TestAPackagesConnectionsAreAudited: every connection a confined package
// plugin makes through its egress proxy is a net.connection audit event
// naming the plugin and its package, allowed or refused: the real Brave
// plugin searching a loopback server through the proxy (host, port, the
// address dialled, bytes each way; no path or query: the proxy records a
// host), and its hostile build asking for a host its package.json did not
// declare, and for one that carries its key (learned from an earlier
// call), which the audit holds redacted. `demiurge audit` lists them.
func TestAPackagesConnectionsAreAudited(t *testing.T) {
	if miss := sandbox.PluginMissing(sandbox.KernelSupport()); len(miss) > 0 {
		t.Skipf("this kernel cannot confine a plugin: %v", miss)
	}
	const name, env, key = "web_search_brave", "BRAVE_API_KEY", "bsa-audited-5d2e"
	archive, sum, err := packagetest.Build(t.TempDir(), name, "demiurgetest", "demiurgeprobe")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(providers[0].serve(t, make(chan string, 8), false))
	defer srv.Close()
	srvAddr := strings.TrimPrefix(srv.URL, "http://")
	port := srvAddr[strings.LastIndex(srvAddr, ":")+1:]

	coreDir := t.TempDir()
	os.WriteFile(filepath.Join(coreDir, core.FileName), []byte("name: e2e\ntoolsets: []\ncapabilities: [network.fetch]\n"), 0o644)
	c, err := core.Load(coreDir)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	if _, err := packages.New(state, c).InstallGranting(archive, sum, []string{packages.GrantPrefix + env}); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(state, "runtime", "packages", name)
	os.MkdirAll(home, 0o700)
	os.WriteFile(filepath.Join(home, name+".endpoint"), []byte(srv.URL+"/res/v1/web/search"), 0o600)
	probes := []probe{
		{Name: "undeclared", Op: "proxy-connect", Addr: "example.org:" + port},
		{Name: "key in a host name", Op: "proxy-connect", Addr: key + ".example.net:" + port},
	}
	b, _ := json.Marshal(probes)
	os.WriteFile(filepath.Join(home, "probe.json"), b, 0o600)
	t.Setenv(env, key)
	t.Setenv(plugins.EnvPackagePorts, port)
	t.Setenv("DEMIURGE_EGRESS_ALLOW_ADDR", srvAddr)

	h, err := toolhost.Open(toolhost.Options{CoreDir: coreDir, Workspace: t.TempDir(), StateDir: state, BuiltinPluginDir: t.TempDir(), Rules: []string{"allow:web_search"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	turn, err := h.NewTurn(ctx)
	if err != nil {
		h.Close()
		t.Fatal(err)
	}
	out := turn.Call(ctx, dispatch.ToolCall{ID: "c1", Name: "web_search", Args: []byte(`{"query":"golang","count":3}`)})
	if out.Status != dispatch.StatusOK {
		h.Close()
		t.Fatalf("search: %s: %s", out.Status, out.Views.Model.String())
	}
	h.Close() // the plugin ends, its proxy closes, waiting for its events

	st, err := runtime.Open(filepath.Join(state, "demiurge.db"))
	if err != nil {
		t.Fatal(err)
	}
	evs, err := st.Events(runtime.EventQuery{Kind: dispatch.EventKindNetConnection})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	type conn struct {
		Kind, Method, Host, Addr, Verdict, Reason, Plugin, Package string
		Port                                                       int
		Sent                                                       int64 `json:"bytes_sent"`
		Recv                                                       int64 `json:"bytes_received"`
	}
	var search, undeclared, keyed *conn
	for _, ev := range evs {
		raw := string(ev.Data)
		t.Logf("%s", raw)
		if strings.Contains(raw, key) || strings.Contains(raw, "/res/v1") || strings.Contains(raw, "golang") {
			t.Errorf("a connection's event holds the key, the path or the query: %s", raw)
		}
		var cn conn
		if err := json.Unmarshal(ev.Data, &cn); err != nil {
			t.Fatal(err)
		}
		if cn.Plugin != name || cn.Package != name {
			t.Errorf("the event names plugin %q of package %q: %s", cn.Plugin, cn.Package, raw)
		}
		switch {
		case cn.Kind == "http" && cn.Verdict == "allowed":
			search = &cn
		case strings.HasPrefix(cn.Host, "example.org"):
			undeclared = &cn
		case strings.Contains(cn.Host, "<redacted:"+env+">"):
			keyed = &cn
		}
	}
	if search == nil || search.Host != "127.0.0.1" || search.Port == 0 || search.Addr != srvAddr || search.Method != "GET" || search.Recv == 0 {
		t.Errorf("the search's connection: %+v", search)
	}
	for what, cn := range map[string]*conn{"the undeclared host": undeclared, "the host with the key": keyed} {
		if cn == nil || cn.Verdict != "refused" || !strings.Contains(cn.Reason, "is not among the hosts package web_search_brave declared") || cn.Addr != "" {
			t.Errorf("%s's connection: %+v", what, cn)
		}
	}

	// What the operator reads: the real binary's audit table.
	bin := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR")
	if bin == "" {
		t.Skip("DEMIURGE_TEST_PLUGIN_DIR is not set: no demiurge binary to read the audit with")
	}
	cmd := exec.Command(filepath.Join(bin, "demiurge"), "--state", state, "--core", coreDir, "audit", "--kind", dispatch.EventKindNetConnection)
	cmd.Env = append(os.Environ(), "DEMIURGE_HOST=off")
	got, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demiurge audit: %v\n%s", err, got)
	}
	t.Logf("demiurge audit:\n%s", got)
	for _, want := range []string{"plugin:" + name + " +allowed", "plugin:" + name + " +refused"} {
		if !regexpMatch(want, string(got)) {
			t.Errorf("demiurge audit does not list %q", want)
		}
	}
}

func regexpMatch(pattern, s string) bool { return regexp.MustCompile(pattern).MatchString(s) }
