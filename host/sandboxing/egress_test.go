package sandboxing

import (
	"strings"
	"testing"
)

// TestEgressFromEnv: the operator's egress settings come from the host's
// environment; malformed values are errors naming the variable, and an
// allowance must be an address, never a name.
func TestEgressFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	e, err := EgressFromEnv(env(map[string]string{
		EnvEgressAllow: "registry.npmjs.org, *.pypi.org proxy.golang.org:443", EnvEgressLimited: "1", EnvEgressAddr: "127.0.0.1:4873,[::1]:8080",
	}))
	if err != nil || len(e.Operator) != 3 || !e.Limited || len(e.Allow) != 2 || e.Allow[1].String() != "[::1]:8080" {
		t.Fatalf("%+v %v", e, err)
	}
	reach := e.Reach()
	for _, want := range []string{"egress proxy", "registry.npmjs.org, *.pypi.org, proxy.golang.org:443", "127.0.0.1:4873", "limited: GET and HEAD"} {
		if !strings.Contains(reach, want) {
			t.Errorf("the card line %q lacks %q", reach, want)
		}
	}
	// README.md's example.
	if e, err := EgressFromEnv(env(map[string]string{EnvEgressAllow: "registry.npmjs.org, *.pypi.org, git.example.com:8443", EnvEgressLimited: "1", EnvEgressAddr: "127.0.0.1:4873"})); err != nil || len(e.Operator) != 3 || e.Operator[2].Port != 8443 {
		t.Fatalf("README example: %+v %v", e, err)
	}
	if r := (Egress{}).Reach(); !strings.Contains(r, "any public host on ports 80 and 443") {
		t.Errorf("default reach: %q", r)
	}
	for k, v := range map[string]string{
		EnvEgressAllow:   "a.test:99999",
		EnvEgressAddr:    "localhost:4873",
		EnvEgressLimited: "yes",
	} {
		if _, err := EgressFromEnv(env(map[string]string{k: v})); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
}
