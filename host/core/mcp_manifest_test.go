package core

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseMCPServerGood(t *testing.T) {
	src := `# every key
command: npx
args: [-y, "@modelcontextprotocol/server-everything", ""]
env:
  ZED: "z"
  API_KEY: "s3cret value"
cwd: sub/dir
enabled: false
tools:
  include: [echo, add]
  exclude: [add]
connect_timeout_seconds: 2.5
capability: mcp.call:shared
protocol_version: 2025-06-18
trust_new_tools: true
`
	s, err := ParseMCPServer([]byte(src), "/core/agent/mcp/docs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := MCPServer{
		ID: "docs", File: "/core/agent/mcp/docs.yaml", Transport: MCPStdio, Command: "npx",
		Args: []string{"-y", "@modelcontextprotocol/server-everything", ""},
		Env:  []KV{{"API_KEY", "s3cret value"}, {"ZED", "z"}}, Cwd: "sub/dir",
		Include: []string{"echo", "add"}, Exclude: []string{"add"},
		ConnectTimeout: 2500 * time.Millisecond, Capability: "mcp.call:shared", ProtocolVersion: "2025-06-18",
		TrustNewTools: true,
	}
	s.Fingerprint = ""
	if !equalServer(s, want) {
		t.Fatalf("got %+v\nwant %+v", s, want)
	}
	if s.CallCapability() != "mcp.call:shared" {
		t.Fatal(s.CallCapability())
	}

	h, err := ParseMCPServer([]byte("url: https://mcp.example/mcp?x=1\nheaders: {X-Api-Key: k, Authorization: Bearer t}\n"), "web.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if h.Transport != MCPHTTP || !h.Enabled || h.TrustNewTools || h.ConnectTimeout != DefaultMCPConnectTimeout ||
		h.ProtocolVersion != DefaultMCPProtocolVersion || h.CallCapability() != "mcp.call:web" ||
		!slices.Equal(h.Headers, []KV{{"Authorization", "Bearer t"}, {"X-Api-Key", "k"}}) {
		t.Fatalf("%+v", h)
	}
	if len(h.Fingerprint) != 64 {
		t.Fatalf("fingerprint %q", h.Fingerprint)
	}
	h2, _ := ParseMCPServer([]byte("url: https://mcp.example/mcp?x=2\n"), "web.yaml")
	if h2.Fingerprint == h.Fingerprint {
		t.Fatal("different manifests share a fingerprint")
	}
}

func equalServer(a, b MCPServer) bool {
	return a.ID == b.ID && a.File == b.File && a.Transport == b.Transport && a.Command == b.Command &&
		slices.Equal(a.Args, b.Args) && slices.Equal(a.Env, b.Env) && a.Cwd == b.Cwd && a.URL == b.URL &&
		slices.Equal(a.Headers, b.Headers) && a.Enabled == b.Enabled && slices.Equal(a.Include, b.Include) &&
		slices.Equal(a.Exclude, b.Exclude) && a.ConnectTimeout == b.ConnectTimeout &&
		a.Capability == b.Capability && a.ProtocolVersion == b.ProtocolVersion && a.TrustNewTools == b.TrustNewTools
}

// TestParseMCPServerBad: each refusal names the file, the line and the
// field, and never quotes an env or header value or URL credentials.
func TestParseMCPServerBad(t *testing.T) {
	cases := []struct {
		name, file, src string
		line            int
		field, msg      string
	}{
		{"empty", "a.yaml", "", 0, "", "MCP manifest is empty"},
		{"comments", "a.yaml", "# x\n", 0, "", "MCP manifest is empty"},
		{"not mapping", "a.yaml", "- x\n", 1, "", "want a mapping with the keys command"},
		{"neither", "a.yaml", "enabled: true\n", 1, "", "declares neither command"},
		{"both", "a.yaml", "command: x\nurl: https://a.example/\n", 1, "url", "both command"},
		{"unknown key", "a.yaml", "comand: x\n", 1, "comand", `did you mean "command"?`},
		// A manifest cannot opt into private targets or an ambient proxy:
		// neither is a key.
		{"allow_private", "a.yaml", "url: https://a.example/mcp\nallow_private: true\n", 2, "allow_private", `unknown key "allow_private"`},
		{"allow_private on stdio", "a.yaml", "command: x\nallow_private: true\n", 2, "allow_private", `unknown key "allow_private"`},
		{"proxy", "a.yaml", "url: https://a.example/mcp\nproxy: http://127.0.0.1:3128\n", 2, "proxy", `unknown key "proxy"`},
		{"args not list", "a.yaml", "command: x\nargs: -y\n", 2, "args", "want a list"},
		{"arg number", "a.yaml", "command: x\nargs: [--port, 8080]\n", 2, "args[1]", "want a string, got the number 8080"},
		{"env bad key", "a.yaml", "command: x\nenv: {\"A-B\": v}\n", 2, "env.A-B", "not an environment variable name"},
		{"env number", "a.yaml", "command: x\nenv:\n  TOKEN: 12345678\n", 3, "env.TOKEN", "want a string value; quote it"},
		{"env dup", "a.yaml", "command: x\nenv:\n  A: hunter22\n  A: hunter22\n", 4, "env.A", "duplicate key"},
		{"headers on stdio", "a.yaml", "command: x\nheaders: {X: y}\n", 1, "headers", "headers apply to a url server"},
		{"args on url", "a.yaml", "url: https://a.example/\nargs: [x]\n", 1, "args", "args apply to a command"},
		{"env on url", "a.yaml", "url: https://a.example/\nenv: {A: b}\n", 1, "env", "env applies to a command"},
		{"cwd on url", "a.yaml", "url: https://a.example/\ncwd: x\n", 1, "cwd", "cwd applies to a command"},
		{"scheme", "a.yaml", "url: ftp://a.example/\n", 1, "url", `scheme "ftp" is not http or https`},
		{"userinfo", "a.yaml", "url: https://bob:hunter22@a.example/\n", 1, "url", "carries userinfo"},
		{"no host", "a.yaml", "url: https:///x\n", 1, "url", "has no host"},
		{"timeout zero", "a.yaml", "command: x\nconnect_timeout_seconds: 0\n", 2, "connect_timeout_seconds", "above 0"},
		{"timeout huge", "a.yaml", "command: x\nconnect_timeout_seconds: 301\n", 2, "connect_timeout_seconds", "at most 300"},
		{"timeout string", "a.yaml", "command: x\nconnect_timeout_seconds: \"5\"\n", 2, "connect_timeout_seconds", "want a number of seconds"},
		{"enabled string", "a.yaml", "command: x\nenabled: \"no\"\n", 2, "enabled", "want true or false"},
		{"tools key", "a.yaml", "command: x\ntools: {inclde: [a]}\n", 2, "tools.inclde", `did you mean "include"?`},
		{"tools dup", "a.yaml", "command: x\ntools: {include: [a, a]}\n", 2, "tools.include[1]", "duplicate tool"},
		{"capability wildcard", "a.yaml", "command: x\ncapability: mcp.call:*\n", 2, "capability", "without wildcards"},
		{"capability other", "a.yaml", "command: x\ncapability: fs.write\n", 2, "capability", "must be mcp.call:<server> or tool.call:<name>"},
		{"protocol", "a.yaml", "command: x\nprotocol_version: 2026-01-01\n", 2, "protocol_version", "not one the host speaks"},
		{"trust string", "a.yaml", "command: x\ntrust_new_tools: \"yes\"\n", 2, "trust_new_tools", "want true or false"},
		// A core can never allow a private address: no key does.
		{"allow private", "a.yaml", "url: http://127.0.0.1:3999/mcp\nallow_private: true\n", 2, "allow_private", `unknown key "allow_private"`},
		{"private address", "a.yaml", "url: http://127.0.0.1:3999/mcp\nprivate_address: 127.0.0.1:3999\n", 2, "private_address", "unknown key"},
		{"alias", "a.yaml", "command: &c x\nargs: [*c]\n", 2, "args[0]", "YAML aliases"},
		{"two docs", "a.yaml", "command: x\n---\ncommand: y\n", 2, "", "second YAML document"},
		{"id double underscore", "a__b.yaml", "command: x\n", 0, "", `contains "__"`},
		{"id digit first", "1a.yaml", "command: x\n", 0, "", "must start with a letter"},
		{"id too long", strings.Repeat("a", 33) + ".yaml", "command: x\n", 0, "", "at most 32"},
		{"id trailing underscore", "a_.yaml", "command: x\n", 0, "", "ends with '_'"},
		{"nul in arg", "a.yaml", "command: x\nargs: [\"a\\0b\"]\n", 2, "args[0]", "NUL"},
		{"syntax", "a.yaml", "command: [x\n", 1, "", "invalid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseMCPServer([]byte(c.src), c.file)
			if err == nil {
				t.Fatal("parsed")
			}
			if err.File != c.file || err.Line != c.line || err.Field != c.field || !strings.Contains(err.Msg, c.msg) {
				t.Fatalf("got %s (line %d field %q)\nwant line %d field %q msg %q", err, err.Line, err.Field, c.line, c.field, c.msg)
			}
			for _, secret := range []string{"hunter22", "12345678"} {
				if strings.Contains(err.Error(), secret) {
					t.Fatalf("error quotes a secret value: %s", err)
				}
			}
		})
	}
}

func TestLoadMCPServers(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"b.yaml":    "command: b\n",
		"a.yaml":    "url: https://a.example/mcp\n",
		"bad.yaml":  "command: [\n",
		"old.yml":   "command: x\n",
		"a.yml":     "command: a\n",
		"README.md": "not a manifest\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	servers, errs := LoadMCPServers(dir)
	var ids []string
	for _, s := range servers {
		ids = append(ids, s.ID)
	}
	if !slices.Equal(ids, []string{"a", "b"}) {
		t.Fatalf("servers %v", ids)
	}
	var errIDs []string
	for _, e := range errs {
		errIDs = append(errIDs, e.ID)
	}
	// A stray .yml is named by its file, never by a server's id: a.yml
	// beside a.yaml must not be taken for an error of server a.
	if !slices.Equal(errIDs, []string{"a.yml", "bad", "old.yml", "sub"}) {
		t.Fatalf("errors %v: %v", errIDs, errs)
	}
	if !strings.Contains(errs[2].Err.Msg, "rename it to old.yaml") || !strings.Contains(errs[3].Err.Msg, "not a regular file") {
		t.Fatalf("%v / %v", errs[2].Err, errs[3].Err)
	}
	if s, e := LoadMCPServers(""); s != nil || e != nil {
		t.Fatal("no root must mean no servers")
	}
	if _, e := LoadMCPServers(filepath.Join(dir, "missing")); len(e) != 1 {
		t.Fatal("a missing root must be one error")
	}
}

// FuzzParseMCPServer: no panic, every error a located *LoadError, and what
// parses holds the invariants the MCP host relies on.
func FuzzParseMCPServer(f *testing.F) {
	f.Add([]byte("command: npx\nargs: [-y, x]\nenv: {A: b}\ncwd: .\ntools: {include: [a], exclude: [b]}\n"))
	f.Add([]byte("url: https://h.example:8443/mcp?q=1\nheaders: {Authorization: Bearer x}\nconnect_timeout_seconds: 1e2\n"))
	f.Add([]byte("command: x\ncapability: tool.call:y\nprotocol_version: 2024-11-05\nenabled: false\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Add([]byte("url: http://[::1]:80/\n"))
	f.Add([]byte("command: x\nconnect_timeout_seconds: .inf\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseMCPServer(data, "/c/agent/mcp/srv.yaml")
		if err != nil {
			if err.File != "/c/agent/mcp/srv.yaml" || err.Msg == "" {
				t.Fatalf("unlocated error %#v", err)
			}
			return
		}
		if s.ID != "srv" || (s.Transport == MCPStdio) == (s.Command == "") || (s.Transport == MCPHTTP) == (s.URL == "") {
			t.Fatalf("transport invariant broken: %+v", s)
		}
		if s.ConnectTimeout <= 0 || s.ConnectTimeout > MaxMCPConnectTimeout {
			t.Fatalf("timeout %v", s.ConnectTimeout)
		}
		if !slices.Contains(MCPProtocolVersions, s.ProtocolVersion) || len(s.Fingerprint) != 64 {
			t.Fatalf("%+v", s)
		}
		if c := s.CallCapability(); !strings.HasPrefix(c, "mcp.call:") && !strings.HasPrefix(c, "tool.call:") {
			t.Fatalf("capability %q", c)
		}
	})
}
