package mcp

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"demiurge.dev/host/mcp/mcptest"
)

// portOf is the port of a loopback URL.
func portOf(t *testing.T, rawURL string) uint16 {
	t.Helper()
	_, p, err := net.SplitHostPort(strings.TrimPrefix(strings.TrimSuffix(rawURL, "/mcp"), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(p)
	return uint16(n)
}

// TestPrivateAllowance: without the URL policy's test hook, a server on
// 127.0.0.1 is reachable only with the operator's allowance of exactly
// that server at that address and port; the allowance shows on the
// connect card and in each URL decision.
func TestPrivateAllowance(t *testing.T) {
	url, _ := recordingServer(t)
	port := portOf(t, url)
	exact := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), port)
	for _, c := range []struct {
		name    string
		allow   []PrivateAllowance
		connect bool
		diag    string
	}{
		{"allowed", []PrivateAllowance{{Server: "ide", Addr: exact, Source: FlagSource}}, true, ""},
		{"none", nil, false, "loopback"},
		{"other server", []PrivateAllowance{{Server: "other", Addr: exact, Source: FlagSource}}, false, "loopback"},
		{"other port", []PrivateAllowance{{Server: "ide", Addr: netip.AddrPortFrom(exact.Addr(), port+1), Source: FlagSource}}, false, "loopback"},
		{"other address", []PrivateAllowance{{Server: "ide", Addr: netip.AddrPortFrom(netip.MustParseAddr("127.0.0.2"), port), Source: FlagSource}}, false, "loopback"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var dec decisions
			f := newFixture(t, func(cfg *Config) { cfg.Private = c.allow; cfg.OnURLDecision = dec.add })
			mcptest.Manifest(t, f.mcpDir, "ide", "url: "+url+"\n")
			f.ask.allow(ConnectTool("ide"))
			st := state(t, f.resolve(), "ide")
			if (st.Status == StatusConnected) != c.connect || !strings.Contains(st.Diagnostic, c.diag) {
				t.Fatalf("%+v", st)
			}
			card := f.ask.asked[0]
			shown := strings.Contains(card, "private address allowed by the operator: "+exact.String()+" (from --allow-private-mcp)")
			if shown != (c.name == "allowed") {
				t.Errorf("connect card:\n%s", card)
			}
			ds := dec.all()
			if len(ds) == 0 {
				t.Fatal("no URL decisions")
			}
			for _, d := range ds {
				if d.Allowed != c.connect || c.connect && d.Private != exact.String() {
					t.Errorf("decision %+v", d)
				}
			}
		})
	}
}

// TestPrivateAllowanceRedirect: the allowed server redirecting to another
// private address, or to another port of its own, is refused.
func TestPrivateAllowanceRedirect(t *testing.T) {
	target, _ := recordingServer(t)
	for _, to := range []string{
		strings.Replace(target, "127.0.0.1", "127.0.0.2", 1),
		target, // another port than the one allowed
		"http://10.0.0.7/mcp",
	} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
		}))
		t.Cleanup(redirector.Close)
		allowed := netip.AddrPortFrom(netip.MustParseAddr("127.0.0.1"), portOf(t, redirector.URL))
		var dec decisions
		f := newFixture(t, func(cfg *Config) {
			cfg.Private = []PrivateAllowance{{Server: "ide", Addr: allowed, Source: FlagSource}}
			cfg.OnURLDecision = dec.add
		})
		mcptest.Manifest(t, f.mcpDir, "ide", "url: "+redirector.URL+"/mcp\n")
		f.ask.allow(ConnectTool("ide"))
		st := state(t, f.resolve(), "ide")
		if st.Status != StatusFailed {
			t.Fatalf("redirect to %s: %+v", to, st)
		}
		refusedHop := false
		for _, d := range dec.all() {
			refusedHop = refusedHop || d.Phase == "redirect" && !d.Allowed
		}
		if !refusedHop {
			t.Errorf("redirect to %s: no refused redirect decision in %+v", to, dec.all())
		}
	}
}

// TestPrivateAllowanceParse: the flag's form, and what it refuses.
func TestPrivateAllowanceParse(t *testing.T) {
	for _, c := range []struct {
		spec, want, err string
	}{
		{"ide=127.0.0.1:3999", "ide at 127.0.0.1:3999 (--allow-private-mcp)", ""},
		{"ide=[::1]:3999", "ide at [::1]:3999 (--allow-private-mcp)", ""},
		{"ide=[::ffff:127.0.0.1]:3999", "ide at 127.0.0.1:3999 (--allow-private-mcp)", ""},
		{"ide=localhost:3999", "", "a host name is not allowed"},
		{"ide=127.0.0.1", "", "not an IP address and port"},
		{"ide=127.0.0.1:0", "", "between 1 and 65535"},
		{"127.0.0.1:3999", "", "want SERVER=ADDRESS:PORT"},
		{"a__b=127.0.0.1:3999", "", `contains "__"`},
		{"=127.0.0.1:3999", "", "server id is empty"},
	} {
		a, err := ParsePrivateAllowance(c.spec, FlagSource)
		if err == nil && a.String() != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%q: %v, %v", c.spec, a, err)
		}
	}
}

// TestPrivateConfigFile: the operator's file is read only when it is the
// user's own, writable by nobody else, not a symlink, outside the
// workspace, and well-formed.
func TestPrivateConfigFile(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	os.MkdirAll(ws, 0o755)
	good := "private_mcp:\n  - server: ide\n    address: 127.0.0.1:3999\n"
	write := func(name, body string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
		return p
	}
	if got, err := LoadPrivateConfig(write("ok.yaml", good, 0o600), ws); err != nil || len(got) != 1 || got[0].String() != "ide at 127.0.0.1:3999 ("+filepath.Join(dir, "ok.yaml")+")" {
		t.Fatalf("%v %v", got, err)
	}
	if got, err := LoadPrivateConfig(filepath.Join(dir, "missing.yaml"), ws); err != nil || got != nil {
		t.Fatalf("a missing file: %v %v", got, err)
	}
	link := filepath.Join(dir, "link.yaml")
	os.Symlink(filepath.Join(dir, "ok.yaml"), link)
	for _, c := range []struct {
		file, err string
	}{
		{write("group.yaml", good, 0o620), "writable by others"},
		{write("world.yaml", good, 0o602), "writable by others"},
		{write("ws/in.yaml", good, 0o600), "inside the workspace"},
		{link, "symbolic link"},
		{write("key.yaml", "private_mcp:\n  - server: ide\n    address: 127.0.0.1:3999\n    allow_all: true\n", 0o600), "allow_all"},
		{write("host.yaml", "private_mcp:\n  - server: ide\n    address: localhost:3999\n", 0o600), "a host name is not allowed"},
		{write("top.yaml", "allow_private: [ide]\n", 0o600), "allow_private"},
	} {
		if _, err := LoadPrivateConfig(c.file, ws); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want %q", c.file, err, c.err)
		}
	}
}

// TestPrivateAllowanceInPlanKey: the allowance is part of what a connect
// approval is for: another allowance (or none) is another plan key, so a
// session allow given under one does not carry over to another.
func TestPrivateAllowanceInPlanKey(t *testing.T) {
	f := newFixture(t)
	mcptest.Manifest(t, f.mcpDir, "ide", "url: http://127.0.0.1:3999/mcp\n")
	servers := f.turn().Servers
	key := func(allow ...PrivateAllowance) string {
		p, err := newPlan(servers[0], f.ws, "", allow, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p.key
	}
	a := PrivateAllowance{Server: "ide", Addr: netip.MustParseAddrPort("127.0.0.1:3999"), Source: FlagSource}
	b := PrivateAllowance{Server: "ide", Addr: netip.MustParseAddrPort("127.0.0.1:4000"), Source: FlagSource}
	if key() == key(a) || key(a) == key(b) || key(a) != key(a) {
		t.Fatal("the plan key does not follow the allowance")
	}
}
