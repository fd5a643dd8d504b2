package policy

import (
	"errors"
	"testing"
)

func TestGate(t *testing.T) {
	caps, err := NewCapabilitySet([]string{"fs.read", "mcp.call:*"})
	if err != nil {
		t.Fatal(err)
	}
	auth := Authority{Principal: "local", Session: "s1", Capabilities: caps}
	for _, tc := range []struct {
		name     string
		required []string
		missing  string
	}{
		{"nothing required", nil, ""},
		{"empty strings skipped", []string{"", ""}, ""},
		{"granted", []string{"fs.read"}, ""},
		{"wildcard grant", []string{"mcp.call:github", "fs.read"}, ""},
		{"missing", []string{"fs.read", "fs.write"}, "fs.write"},
		{"first missing named", []string{"terminal.exec", "fs.write"}, "terminal.exec"},
		{"wildcard requirement refused", []string{"mcp.call:*"}, "mcp.call:*"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Gate(tc.required, auth, nil)
			if tc.missing == "" {
				if err != nil {
					t.Fatalf("Gate = %v, want nil", err)
				}
				return
			}
			var ce *CapabilityError
			if !errors.As(err, &ce) || ce.Missing != tc.missing {
				t.Fatalf("Gate = %v, want CapabilityError{%s}", err, tc.missing)
			}
		})
	}
	err = Gate([]string{"fs.write"}, auth, nil)
	if want := "capability fs.write is not granted to this session; grant it in agent.yaml capabilities"; err.Error() != want {
		t.Errorf("message = %q, want %q", err.Error(), want)
	}
	if err := Gate([]string{"fs.read"}, Authority{}, nil); err == nil {
		t.Error("the zero authority passed the gate")
	}
}

func TestAuthorityFingerprintCoversEveryField(t *testing.T) {
	caps, _ := NewCapabilitySet([]string{"fs.read"})
	more, _ := NewCapabilitySet([]string{"fs.read", "fs.write"})
	base := Authority{Principal: "p", Session: "s", CoreRevision: "r", Capabilities: caps, PolicyFingerprint: "f"}
	variants := map[string]Authority{}
	for name, mut := range map[string]func(*Authority){
		"principal":    func(a *Authority) { a.Principal = "q" },
		"session":      func(a *Authority) { a.Session = "t" },
		"core":         func(a *Authority) { a.CoreRevision = "r2" },
		"capabilities": func(a *Authority) { a.Capabilities = more },
		"policy":       func(a *Authority) { a.PolicyFingerprint = "g" },
		// Field boundaries count: "p"+"s" must not equal "ps"+"".
		"shifted": func(a *Authority) { a.Principal, a.Session = "ps", "" },
	} {
		v := base
		mut(&v)
		variants[name] = v
	}
	seen := map[string]string{base.Fingerprint(): "base"}
	for name, v := range variants {
		fp := v.Fingerprint()
		if other, dup := seen[fp]; dup {
			t.Errorf("%s and %s share a fingerprint", name, other)
		}
		seen[fp] = name
	}
	if base.Fingerprint() != base.Fingerprint() {
		t.Error("fingerprint is not deterministic")
	}
}
