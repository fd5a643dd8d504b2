package policy

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestResolveBindings(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	caps, err := NewCapabilitySet([]string{"terminal.exec", "secret.bind:GH_TOKEN", "secret.bind:NPM_TOKEN", "secret.bind:SHORT", "secret.bind:UNSET", "secret.bind:EMPTY"})
	if err != nil {
		t.Fatal(err)
	}
	hostEnv := map[string]string{"GH_TOKEN": "ghp_0123456789abcdef", "NPM_TOKEN": "npm_abcdefghijkl", "SHORT": "abc", "EMPTY": "", "OTHER": "other-secret-value"}
	lookup := func(n string) (string, bool) { v, ok := hostEnv[n]; return v, ok }
	secs := func(n int64) *int64 { return &n }
	base := BindingContext{Capabilities: caps, Lookup: lookup, Timeout: 120 * time.Second, Now: now}
	cases := []struct {
		name       string
		reqs       []BindingRequest
		background bool
		wantErr    string
		targets    []string
		expiry     time.Time
	}{
		{name: "none", reqs: nil},
		{name: "default target", reqs: []BindingRequest{{Source: "env:GH_TOKEN"}}, targets: []string{"GH_TOKEN"}},
		{name: "renamed, with expiry", reqs: []BindingRequest{{Source: "env:GH_TOKEN", Target: "GITHUB_PAT", ExpiresInSeconds: secs(30)}, {Source: "env:NPM_TOKEN", ExpiresInSeconds: secs(10)}},
			targets: []string{"GITHUB_PAT", "NPM_TOKEN"}, expiry: now.Add(10 * time.Second)},
		{name: "expiry equal to the timeout", reqs: []BindingRequest{{Source: "env:GH_TOKEN", ExpiresInSeconds: secs(120)}}, targets: []string{"GH_TOKEN"}, expiry: now.Add(120 * time.Second)},
		{name: "not granted", reqs: []BindingRequest{{Source: "env:OTHER"}}, wantErr: "does not hold secret.bind:OTHER"},
		{name: "bad source", reqs: []BindingRequest{{Source: "GH_TOKEN"}}, wantErr: "must be env:NAME"},
		{name: "source with a wildcard", reqs: []BindingRequest{{Source: "env:*"}}, wantErr: "must be env:NAME"},
		{name: "file source", reqs: []BindingRequest{{Source: "file:/etc/shadow"}}, wantErr: "must be env:NAME"},
		{name: "background", reqs: []BindingRequest{{Source: "env:GH_TOKEN"}}, background: true, wantErr: "foreground-only"},
		{name: "unset variable", reqs: []BindingRequest{{Source: "env:UNSET"}}, wantErr: "UNSET is not set"},
		{name: "empty variable", reqs: []BindingRequest{{Source: "env:EMPTY"}}, wantErr: "EMPTY is empty"},
		{name: "too short to redact", reqs: []BindingRequest{{Source: "env:SHORT"}}, wantErr: "could not be redacted"},
		{name: "expired", reqs: []BindingRequest{{Source: "env:GH_TOKEN", ExpiresInSeconds: secs(0)}}, wantErr: "already expired"},
		{name: "negative expiry", reqs: []BindingRequest{{Source: "env:GH_TOKEN", ExpiresInSeconds: secs(-3)}}, wantErr: "already expired"},
		{name: "outlives the timeout", reqs: []BindingRequest{{Source: "env:GH_TOKEN", ExpiresInSeconds: secs(121)}}, wantErr: "may not outlive the call"},
		{name: "target PATH", reqs: []BindingRequest{{Source: "env:GH_TOKEN", Target: "PATH"}}, wantErr: "target PATH is refused"},
		{name: "target HOME", reqs: []BindingRequest{{Source: "env:GH_TOKEN", Target: "HOME"}}, wantErr: "target HOME is refused"},
		{name: "target COMSPEC", reqs: []BindingRequest{{Source: "env:GH_TOKEN", Target: "COMSPEC"}}, wantErr: "target COMSPEC is refused"},
		{name: "target LD_PRELOAD", reqs: []BindingRequest{{Source: "env:GH_TOKEN", Target: "LD_PRELOAD"}}, wantErr: "target LD_PRELOAD is refused"},
		{name: "target PYTHONPATH", reqs: []BindingRequest{{Source: "env:GH_TOKEN", Target: "PYTHONPATH"}}, wantErr: "target PYTHONPATH is refused"},
		{name: "target NODE_OPTIONS", reqs: []BindingRequest{{Source: "env:GH_TOKEN", Target: "NODE_OPTIONS"}}, wantErr: "target NODE_OPTIONS is refused"},
		{name: "target BASH_ENV", reqs: []BindingRequest{{Source: "env:GH_TOKEN", Target: "BASH_ENV"}}, wantErr: "target BASH_ENV is refused"},
		{name: "target not a name", reqs: []BindingRequest{{Source: "env:GH_TOKEN", Target: "A B"}}, wantErr: "not a variable name"},
		{name: "target twice", reqs: []BindingRequest{{Source: "env:GH_TOKEN", Target: "T"}, {Source: "env:NPM_TOKEN", Target: "T"}}, wantErr: "bound twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bc := base
			bc.Background = tc.background
			plan, err := ResolveBindings(tc.reqs, bc)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				for _, v := range hostEnv {
					if len(v) >= 4 && strings.Contains(err.Error(), v) {
						t.Fatalf("error %q holds a secret value", err)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var targets []string
			for _, b := range plan.Bindings {
				targets = append(targets, b.Target)
				if b.Value() != hostEnv[b.Name] || b.Capability != "secret.bind:"+b.Name {
					t.Fatalf("binding %+v", b)
				}
			}
			if strings.Join(targets, ",") != strings.Join(tc.targets, ",") || !plan.Expiry.Equal(tc.expiry) {
				t.Fatalf("targets %v expiry %v, want %v %v", targets, plan.Expiry, tc.targets, tc.expiry)
			}
			audit, _ := json.Marshal(plan.Audit())
			for _, v := range hostEnv {
				if len(v) >= 4 && strings.Contains(string(audit), v) {
					t.Fatalf("audit %s holds a secret value", audit)
				}
			}
		})
	}
}

func TestWildcardGrantNeverBinds(t *testing.T) {
	// A wildcard cannot even be granted; and a grant of another name never
	// covers this one.
	if _, err := NewCapabilitySet([]string{"secret.bind:*"}); !errors.Is(err, ErrWildcardSecret) {
		t.Fatalf("secret.bind:* accepted: %v", err)
	}
	caps, _ := NewCapabilitySet([]string{"secret.bind:GH_TOKEN_X"})
	_, err := ResolveBindings([]BindingRequest{{Source: "env:GH_TOKEN"}}, BindingContext{Capabilities: caps, Lookup: func(string) (string, bool) { return "long-enough", true }, Timeout: time.Minute})
	if !errors.Is(err, ErrBindingNotGranted) {
		t.Fatalf("err %v, want ErrBindingNotGranted", err)
	}
}

func TestBindingPlanRemaining(t *testing.T) {
	now := time.Now()
	caps, _ := NewCapabilitySet([]string{"secret.bind:A"})
	five := int64(5)
	plan, err := ResolveBindings([]BindingRequest{{Source: "env:A", ExpiresInSeconds: &five}}, BindingContext{Capabilities: caps, Lookup: func(string) (string, bool) { return "value-of-a", true }, Timeout: time.Minute, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if left, err := plan.Remaining(now.Add(2 * time.Second)); err != nil || left != 3*time.Second {
		t.Fatalf("Remaining = %v, %v", left, err)
	}
	if _, err := plan.Remaining(now.Add(6 * time.Second)); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("an expired binding was still good: %v", err)
	}
	// At the very instant it expires, a binding is expired.
	if _, err := plan.Remaining(now.Add(5 * time.Second)); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("a binding at its expiry was still good: %v", err)
	}
	if left, err := (BindingPlan{}).Remaining(now); left != 0 || err != nil {
		t.Fatalf("empty plan: %v %v", left, err)
	}
	if s := plan.Secrets(); s["A"] != "value-of-a" || len(s) != 1 {
		t.Fatalf("Secrets = %v", s)
	}
}

func TestParseBindingRequests(t *testing.T) {
	cases := []struct {
		name, in, wantErr string
		n                 int
	}{
		{name: "absent", in: `null`},
		{name: "one", in: `[{"source":"env:A","target":"B","expires_in_seconds":5}]`, n: 1},
		{name: "float seconds", in: `[{"source":"env:A","expires_in_seconds":5.5}]`, wantErr: "whole number"},
		{name: "not an array", in: `{"source":"env:A"}`, wantErr: "must be an array"},
		{name: "not an object", in: `["env:A"]`, wantErr: "must be an object"},
		{name: "unknown field", in: `[{"source":"env:A","value":"x"}]`, wantErr: "unknown field"},
		{name: "source not a string", in: `[{"source":1}]`, wantErr: "must be a string"},
		{name: "too many", in: "[" + strings.Repeat(`{"source":"env:A"},`, MaxSecretBindings) + `{"source":"env:A"}]`, wantErr: "the most is"},
		{name: "as many as allowed", in: "[" + strings.Repeat(`{"source":"env:A"},`, MaxSecretBindings-1) + `{"source":"env:A"}]`, n: MaxSecretBindings},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dec := json.NewDecoder(strings.NewReader(tc.in))
			dec.UseNumber() // as schema coercion leaves numbers
			var raw any
			if err := dec.Decode(&raw); err != nil {
				t.Fatal(err)
			}
			got, err := ParseBindingRequests(raw)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || len(got) != tc.n {
				t.Fatalf("got %v, %v", got, err)
			}
			if tc.name == "one" && (got[0].Source != "env:A" || got[0].Target != "B" || got[0].ExpiresInSeconds == nil || *got[0].ExpiresInSeconds != 5) {
				t.Fatalf("fields read as %+v", got[0])
			}
		})
	}
}

// TestWholeNumber: a number is whole only when it has no fraction and
// float64 holds it exactly (below 2^53).
func TestWholeNumber(t *testing.T) {
	for _, tc := range []struct {
		v    any
		want bool
	}{
		{json.Number("7"), true}, {json.Number("7.5"), false}, {7, true}, {int64(-3), true},
		{3.0, true}, {3.5, false}, {float64(1<<53 - 1), true}, {float64(1 << 53), false}, {-float64(1 << 53), false}, {1e300, false}, {"7", false},
	} {
		if _, ok := WholeNumber(tc.v); ok != tc.want {
			t.Errorf("WholeNumber(%v) ok = %v, want %v", tc.v, ok, tc.want)
		}
	}
}

// FuzzBindings: whatever the model sends, parsing and resolving never
// panic, and a resolved binding always has an exact grant and an allowed
// target.
func FuzzBindings(f *testing.F) {
	f.Add(`[{"source":"env:GH_TOKEN"}]`)
	f.Add(`[{"source":"env:GH_TOKEN","target":"LD_PRELOAD"}]`)
	f.Add(`[{"source":"env:*"}]`)
	f.Add(`[{"source":"env:GH_TOKEN","expires_in_seconds":-1e300}]`)
	f.Add(`[{"source":"env:GH_TOKEN","target":"path"}]`)
	f.Add(`"x"`)
	caps, _ := NewCapabilitySet([]string{"secret.bind:GH_TOKEN"})
	f.Fuzz(func(t *testing.T, in string) {
		var raw any
		if json.Unmarshal([]byte(in), &raw) != nil {
			return
		}
		reqs, err := ParseBindingRequests(raw)
		if err != nil {
			return
		}
		plan, err := ResolveBindings(reqs, BindingContext{Capabilities: caps, Lookup: func(string) (string, bool) { return "fuzz-secret-value", true }, Timeout: time.Minute, Now: time.Now()})
		if err != nil {
			return
		}
		for _, b := range plan.Bindings {
			if b.Capability != "secret.bind:GH_TOKEN" || b.Target == "PATH" || b.Target == "HOME" || ExecControlEnvKey(b.Target) {
				t.Fatalf("resolved %+v", b)
			}
		}
	})
}
