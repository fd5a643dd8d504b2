package packages

import (
	"errors"
	"strings"
	"testing"

	"demiurge.dev/shared"
)

const goodManifest = `{"name":"web_search_test","version":"1.2.3","protocol":1,"protocol_minor":0,"module":"demiurge.dev/host","tools":["web_search"],"slot":"web_search","secrets":[{"env":"TEST_API_KEY","target":"TEST_API_KEY","tools":["web_search"]}]}`

func TestParseManifest(t *testing.T) {
	m, err := ParseManifest([]byte(goodManifest))
	if err != nil {
		t.Fatal(err)
	}
	if m.Binary() != "demiurge-toolset-web_search_test" || len(m.Grants()) != 1 || m.Grants()[0] != "secret.bind:TEST_API_KEY" {
		t.Fatalf("binary %s grants %v", m.Binary(), m.Grants())
	}
	if err := m.checkProtocol(); err != nil {
		t.Fatal(err)
	}
}

func TestParseManifestRefuses(t *testing.T) {
	for _, tc := range []struct{ name, from, to, want string }{
		{"unknown field", `"slot":`, `"shell":"x","slot":`, `unknown field "shell"`},
		{"bad name", `"name":"web_search_test"`, `"name":"Web-Search"`, `name "Web-Search"`},
		{"bad version", `"1.2.3"`, `"v1"`, `version "v1" is not a semantic version`},
		{"no protocol", `"protocol":1,`, `"protocol":0,`, "protocol 0.0 is not a toolset protocol version"},
		{"no tools", `"tools":["web_search"]`, `"tools":[]`, "tools is empty"},
		{"bad tool", `"tools":["web_search"]`, `"tools":["web search"]`, `"web search" is not a tool name`},
		{"slot path", `"slot":"web_search"`, `"slot":"../etc"`, `slot "../etc" must be one directory name`},
		{"bad module", `"module":"demiurge.dev/host"`, `"module":"a b"`, `module "a b" is not a Go module path`},
		{"wildcard secret", `"env":"TEST_API_KEY"`, `"env":"TEST_*"`, "wildcards are refused"},
		{"PATH as secret", `"env":"TEST_API_KEY"`, `"env":"PATH"`, "PATH controls execution"},
		{"loader variable", `"env":"TEST_API_KEY"`, `"env":"LD_PRELOAD"`, "LD_PRELOAD controls execution"},
		{"runtime option variable", `"env":"TEST_API_KEY"`, `"env":"NODE_OPTIONS"`, "NODE_OPTIONS controls execution"},
		{"host variable", `"env":"TEST_API_KEY"`, `"env":"DEMIURGE_STATE"`, "starting with DEMIURGE_"},
		{"lower-case env", `"env":"TEST_API_KEY"`, `"env":"key"`, "not an upper-case environment variable name"},
		{"secret for another tool", `"tools":["web_search"]}]`, `"tools":["terminal"]}]`, `"terminal" is not one of the package's tools`},
		{"secret for no tool", `"tools":["web_search"]}]`, `"tools":[]}]`, "secrets[0].tools is empty"},
		{"any host", `"slot":`, `"egress":["*"],"slot":`, `would let the plugin reach any host`},
		{"a port", `"slot":`, `"egress":["api.example.com:8443"],"slot":`, `names a port`},
		{"a URL", `"slot":`, `"egress":["https://api.example.com/"],"slot":`, `egress[0]: allowlist entry`},
		{"a host twice", `"slot":`, `"egress":["api.example.com","API.example.com."],"slot":`, `is named twice`},
		{"too many hosts", `"slot":`, `"egress":["a1.example.com","a2.example.com","a3.example.com","a4.example.com","a5.example.com","a6.example.com","a7.example.com","a8.example.com","a9.example.com","b1.example.com","b2.example.com","b3.example.com","b4.example.com","b5.example.com","b6.example.com","b7.example.com","b8.example.com"],"slot":`, `at most 16`},
		{"trailing text", `]}]}`, `]}]}{}`, "text after the JSON object"},
		{"not JSON", goodManifest, `name: x`, "invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(goodManifest, tc.from, tc.to, 1)
			if src == goodManifest {
				t.Fatalf("replacement %q did not apply", tc.from)
			}
			_, err := ParseManifest([]byte(src))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestProtocolVersions(t *testing.T) {
	for _, tc := range []struct {
		major, minor int
		ok           bool
	}{{1, 0, true}, {1, shared.ProtocolMinor, true}, {2, 0, false}, {1, shared.ProtocolMinor + 1, false}, {3, 0, false}} {
		m := &Manifest{Name: "p", Protocol: tc.major, ProtocolMinor: tc.minor}
		err := m.checkProtocol()
		var pe *ProtocolError
		if tc.ok != (err == nil) || (err != nil && !errors.As(err, &pe)) {
			t.Errorf("protocol %d.%d: %v", tc.major, tc.minor, err)
		}
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(goodManifest))
	f.Add([]byte(`{"name":"a","version":"0.0.1","protocol":1,"tools":["t"],"slot":"s","secrets":[{"env":"A","target":"A","tools":["t"]}]}`))
	f.Add([]byte(`{"secrets":[{"env":"*"}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := ParseManifest(b)
		if err != nil {
			return
		}
		// Whatever parses must be safe to place and bind.
		if !namePattern().MatchString(m.Slot) || strings.ContainsAny(m.Name, "/.") {
			t.Fatalf("unsafe manifest accepted: %+v", m)
		}
		for _, s := range m.Secrets {
			if checkSecretEnv(s.Env) != nil {
				t.Fatalf("unsafe secret accepted: %+v", s)
			}
		}
	})
}
