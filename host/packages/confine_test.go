package packages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/packages"
	"demiurge.dev/host/packages/packagetest"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/sandbox"
)

// probe is one thing the hostile build of a package tries (the plugin's
// demiurgeprobe build: plugins/web_search_brave/probe_demiurgeprobe.go).
type probe struct {
	Name string `json:"name"`
	Op   string `json:"op"`
	Path string `json:"path,omitempty"`
	Addr string `json:"addr,omitempty"`
	Pid  int    `json:"pid,omitempty"`
	FD   int    `json:"fd,omitempty"`
}

// TestPackagePluginIsConfined runs a real package plugin (Brave's
// web_search, built with a probe that acts as a hostile package would
// before it serves) under the real kernel confinement: it reads none of the
// user's home, the workspace or the state directory, writes nothing outside
// its own runtime directory, opens no IP socket (so reaches no loopback or
// private address, even on the operator's ports; shared/sandbox's
// TestAConfinedPluginOpensNoIPSocket in one thread), reaches
// through the host's egress proxy only what the URL policy allows,
// cannot debug, signal or look into the host through /proc, and still
// answers a search from a loopback server speaking Brave's API (through
// the proxy, by the operator's exact allowance of its address).
func TestPackagePluginIsConfined(t *testing.T) {
	if miss := sandbox.PluginMissing(sandbox.KernelSupport()); len(miss) > 0 {
		t.Skipf("this kernel cannot confine a plugin: %v", miss)
	}
	const name, env, key = "web_search_brave", "BRAVE_API_KEY", "BSA-confined-7c1e"
	archive, sum, err := packagetest.Build(t.TempDir(), name, "demiurgetest", "demiurgeprobe")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(providers[0].serve(t, make(chan string, 8), false))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]

	// What the plugin must not reach: a fake home with a key, the
	// workspace, the state directory, another loopback port, a unix
	// socket in the state and an abstract one.
	fakeHome := t.TempDir()
	os.MkdirAll(filepath.Join(fakeHome, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(fakeHome, ".ssh", "id_ed25519"), []byte("PRIVATE KEY"), 0o600)
	t.Setenv("HOME", fakeHome)
	t.Setenv("DEMIURGE_PROBE_HOST_SECRET", "host-only-value")
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.txt"), []byte("workspace"), 0o644)
	other, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	go func() {
		for {
			c, err := other.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	otherPort := other.Addr().String()[strings.LastIndex(other.Addr().String(), ":")+1:]
	abstract := fmt.Sprintf("@demiurge-probe-%d", os.Getpid())
	al, err := net.Listen("unix", abstract)
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()

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
	os.WriteFile(filepath.Join(state, "secret-in-state"), []byte("state"), 0o600)
	sock := filepath.Join(state, "host.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()

	home := filepath.Join(state, "runtime", "packages", name)
	os.MkdirAll(home, 0o700)
	os.WriteFile(filepath.Join(home, name+".endpoint"), []byte(srv.URL+"/res/v1/web/search"), 0o600)
	probes := []probe{
		{Name: "read home key", Op: "read", Path: filepath.Join(fakeHome, ".ssh", "id_ed25519")},
		{Name: "list home", Op: "list", Path: fakeHome},
		{Name: "read workspace", Op: "read", Path: filepath.Join(ws, "notes.txt")},
		{Name: "list workspace", Op: "list", Path: ws},
		{Name: "read state", Op: "read", Path: filepath.Join(state, "secret-in-state")},
		{Name: "list state", Op: "list", Path: state},
		{Name: "read etc passwd", Op: "read", Path: "/etc/passwd"},
		{Name: "write workspace", Op: "write", Path: filepath.Join(ws, "pwned")},
		{Name: "write home", Op: "write", Path: filepath.Join(fakeHome, "pwned")},
		{Name: "write tmp", Op: "write", Path: filepath.Join(os.TempDir(), fmt.Sprintf("demiurge-probe-%d", os.Getpid()))},
		{Name: "write state", Op: "write", Path: filepath.Join(state, "pwned")},
		{Name: "symlink to home key", Op: "symlink-read", Path: filepath.Join(fakeHome, ".ssh", "id_ed25519")},
		{Name: "symlink to state", Op: "symlink-read", Path: filepath.Join(state, "secret-in-state")},
		{Name: "host environ", Op: "read", Path: "/proc/%d/environ", Pid: -1},
		{Name: "host mem", Op: "open", Path: "/proc/%d/mem", Pid: -1},
		{Name: "host cwd", Op: "readlink", Path: "/proc/%d/cwd", Pid: -1},
		{Name: "host root", Op: "list", Path: "/proc/%d/root/", Pid: -1},
		{Name: "host fds", Op: "list", Path: "/proc/%d/fd", Pid: -1},
		{Name: "host cmdline", Op: "read", Path: "/proc/%d/cmdline", Pid: -1},
		{Name: "ptrace host", Op: "ptrace", Pid: -1},
		{Name: "signal host", Op: "signal", Pid: -1},
		{Name: "new user namespace", Op: "unshare"},
		{Name: "other port", Op: "connect", Addr: other.Addr().String()},
		// The search server's own address, on an allowed port, directly:
		// stop 51's confinement allowed it (Landlock names ports only).
		{Name: "loopback on an allowed port", Op: "connect", Addr: strings.TrimPrefix(srv.URL, "http://")},
		{Name: "ipv6 loopback on an allowed port", Op: "connect", Addr: "[::1]:" + otherPort},
		{Name: "udp to loopback dns", Op: "udp", Addr: "127.0.0.1:53"},
		{Name: "udp to a private address", Op: "udp", Addr: "10.0.0.1:53"},
		{Name: "proxy to another loopback server", Op: "proxy-connect", Addr: other.Addr().String()},
		{Name: "proxy to localhost", Op: "proxy-connect", Addr: "localhost:" + otherPort},
		{Name: "proxy to metadata", Op: "proxy-connect", Addr: "169.254.169.254:" + otherPort},
		{Name: "proxy to a private address", Op: "proxy-connect", Addr: "10.0.0.1:" + otherPort},
		{Name: "proxy to 0x7f000001", Op: "proxy-connect", Addr: "0x7f000001:" + otherPort},
		// A public host its package.json does not declare, on a port it
		// may use: the proxy refuses it before any lookup.
		{Name: "proxy to an undeclared host", Op: "proxy-connect", Addr: "example.org:" + port},
		{Name: "abstract socket", Op: "unix", Path: abstract},
		{Name: "write image fd", Op: "write-fd", FD: 3},
		{Name: "reopen image fd", Op: "reopen-fd", FD: 3},
		// What it may do:
		{Name: "write own home", Op: "write", Path: filepath.Join(home, "ok")},
		{Name: "proxy to the allowed server", Op: "proxy-connect", Addr: strings.TrimPrefix(srv.URL, "http://")},
		{Name: "read tls roots", Op: "list", Path: "/etc/ssl"},
		{Name: "state socket", Op: "unix", Path: sock},
		{Name: "fds", Op: "fds"},

		{Name: "env", Op: "env"},
	}
	b, _ := json.Marshal(probes)
	os.WriteFile(filepath.Join(home, "probe.json"), b, 0o600)
	t.Setenv(env, key)
	// Both ports allowed: only the address policy stands between the
	// plugin and the other loopback server.
	t.Setenv(plugins.EnvPackagePorts, port+","+otherPort)
	t.Setenv("DEMIURGE_EGRESS_ALLOW_ADDR", strings.TrimPrefix(srv.URL, "http://"))

	h, err := toolhost.Open(toolhost.Options{CoreDir: coreDir, Workspace: ws, StateDir: state, BuiltinPluginDir: t.TempDir(), Rules: []string{"allow:web_search"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	turn, err := h.NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out := turn.Call(ctx, dispatch.ToolCall{ID: "c1", Name: "web_search", Args: []byte(`{"query":"golang","count":3}`)})
	t.Logf("first call (confined plugin start and search): %v", time.Since(start))
	if out.Status != dispatch.StatusOK || !strings.Contains(out.Views.Model.String(), "1. The Go Programming Language") {
		t.Fatalf("the confined plugin's search: status %s: %s\nwarnings: %s", out.Status, out.Views.Model.String(), strings.Join(h.Warnings(), "\n"))
	}
	raw, err := os.ReadFile(filepath.Join(home, "probe.out"))
	if err != nil {
		t.Fatalf("the probe wrote no report: %v", err)
	}
	var got map[string]string
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	allowed := map[string]bool{"write own home": true, "proxy to the allowed server": true, "read tls roots": true}
	support := sandbox.KernelSupport()
	for _, p := range probes {
		v := got[p.Name]
		switch {
		case p.Op == "fds" || p.Op == "env":
		case p.Name == "state socket" && !support.FSResolveUnix:
			// Landlock below ABI 9 cannot refuse connecting to a pathname
			// unix socket (docs/architecture.md says so).
			t.Logf("%s (Landlock ABI %d): %s", p.Name, support.LandlockABI, v)
		case allowed[p.Name]:
			if v != "ok" {
				t.Errorf("%s: %s, want ok", p.Name, v)
			}
		default:
			if !strings.HasPrefix(v, "denied") {
				t.Errorf("%s (%s %s%s): %q, want denied", p.Name, p.Op, p.Path, p.Addr, v)
			} else {
				t.Logf("%s: %s", p.Name, v)
			}
		}
	}
	if v := got["proxy to an undeclared host"]; !strings.Contains(v, "is not among the hosts package web_search_brave declared (package.json egress)") {
		t.Errorf("a host the package did not declare was not refused for that: %q", v)
	}
	for _, w := range []string{filepath.Join(ws, "pwned"), filepath.Join(fakeHome, "pwned"), filepath.Join(state, "pwned")} {
		if _, err := os.Lstat(w); err == nil {
			t.Errorf("the plugin wrote %s", w)
		}
	}
	// Inherited descriptors: stdin, the two pipes, its own sealed image;
	// nothing of the host's files.
	t.Logf("the plugin's descriptors:\n%s", got["fds"])
	for _, line := range strings.Split(strings.TrimSpace(got["fds"]), "\n") {
		fd, target, _ := strings.Cut(line, "=")
		if strings.HasPrefix(target, "/") && target != "/dev/null" && !strings.HasPrefix(target, "/memfd:") {
			t.Errorf("the plugin holds fd %s on %s", fd, target)
		}
	}
	var envs []string
	json.Unmarshal([]byte(got["env"]), &envs)
	joined := strings.Join(envs, "\n")
	if strings.Contains(joined, "DEMIURGE_PROBE_HOST_SECRET") || strings.Contains(joined, key) ||
		!strings.Contains(joined, "HOME="+home+"\n") || !strings.Contains(joined, "TMPDIR=/tmp/demiurge-pkg-") {
		t.Errorf("the plugin's environment: %s", joined)
	}
}
