package core

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSandboxKey: agent.yaml's `sandbox:` takes a mode a core may choose
// and require; off, unknown modes and unknown keys are refused with the
// field named.
func TestSandboxKey(t *testing.T) {
	for _, c := range []struct {
		yaml, mode string
		require    bool
		err        string
	}{
		{"sandbox:\n  mode: read-only\n  require: true\n", "read-only", true, ""},
		{"sandbox:\n  mode: network\n", "network", false, ""},
		{"sandbox:\n  require: true\n", "", true, ""},
		{"sandbox:\n  mode: off\n", "", false, "sandbox.mode: off is the operator's choice"},
		{"sandbox:\n  mode: readonly\n", "", false, `sandbox.mode: unknown sandbox mode "readonly" (did you mean "read-only"?)`},
		{"sandbox:\n  require: yes please\n", "", false, "sandbox.require: want true or false"},
		{"sandbox:\n  mod: read-only\n", "", false, `sandbox.mod: unknown key "mod" (did you mean "mode"?)`},
		{"sandbox: read-only\n", "", false, "sandbox: want a mapping"},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "agent.yaml")
		if err := os.WriteFile(p, []byte("toolsets: [coding]\n"+c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadFile(p)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v; want an error with %q", c.yaml, err, c.err)
			}
			continue
		}
		if err != nil || got.SandboxMode != c.mode || got.SandboxRequire != c.require {
			t.Errorf("%q: %+v, %v", c.yaml, got, err)
		}
	}
}

// TestSandboxNetworkAllow: agent.yaml's sandbox.network_allow is the
// core's allowlist (it narrows the operator's); malformed entries, an
// empty list and a list of another type are refused with the field named.
func TestSandboxNetworkAllow(t *testing.T) {
	for _, c := range []struct {
		yaml, want, err string
	}{
		{"sandbox:\n  network_allow: [registry.npmjs.org, \"*.pypi.org\", \"proxy.golang.org:443\", \"*:8443\"]\n", "registry.npmjs.org *.pypi.org proxy.golang.org:443 *:8443", ""},
		{"sandbox:\n  network_allow: [REGISTRY.NPMJS.ORG.]\n", "registry.npmjs.org", ""},
		// README.md's example.
		{"sandbox: {mode: workspace-write, network_allow: [registry.npmjs.org, \"*.pypi.org\"]}\n", "registry.npmjs.org *.pypi.org", ""},
		{"sandbox:\n  network_allow: []\n", "", "sandbox.network_allow: an empty list would mean no narrowing"},
		{"sandbox:\n  network_allow: [\"a.test:0\"]\n", "", "the port must be between 1 and 65535"},
		{"sandbox:\n  network_allow: [\"http://a.test/\"]\n", "", "want host, *.domain, host:port or *.domain:port"},
		{"sandbox:\n  network_allow: [\"*.10.0.0.1\"]\n", "", "a wildcard takes a domain"},
		{"sandbox:\n  network_allow: a.test\n", "", "sandbox.network_allow"},
	} {
		dir := t.TempDir()
		p := filepath.Join(dir, "agent.yaml")
		if err := os.WriteFile(p, []byte("toolsets: [coding]\n"+c.yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := LoadFile(p)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: %v; want an error with %q", c.yaml, err, c.err)
			}
			continue
		}
		var names []string
		for _, r := range got.SandboxNetworkAllow {
			names = append(names, r.String())
		}
		if err != nil || strings.Join(names, " ") != c.want {
			t.Errorf("%q: %v, %v; want %s", c.yaml, names, err, c.want)
		}
	}
}
