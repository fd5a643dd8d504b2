package plugins

import (
	"context"
	"testing"
)

func TestCacheKey(t *testing.T) {
	const sum = "0f"
	tests := []struct {
		name string
		a, b Input
		same bool
	}{
		{"no input is the binary's sum", Input{}, Input{}, true},
		{"same input", Input{ToolsRoot: "/c/t", CoreDir: "/c", Fingerprint: "x"}, Input{ToolsRoot: "/c/t", CoreDir: "/c", Fingerprint: "x"}, true},
		{"fingerprint changed", Input{ToolsRoot: "/c/t", Fingerprint: "x"}, Input{ToolsRoot: "/c/t", Fingerprint: "y"}, false},
		{"root changed", Input{ToolsRoot: "/c/t", Fingerprint: "x"}, Input{ToolsRoot: "/d/t", Fingerprint: "x"}, false},
		{"core changed", Input{CoreDir: "/c", Fingerprint: "x"}, Input{CoreDir: "/d", Fingerprint: "x"}, false},
		{"input against none", Input{Fingerprint: "x"}, Input{}, false},
		{"fields do not run together", Input{ToolsRoot: "a", CoreDir: "bc"}, Input{ToolsRoot: "ab", CoreDir: "c"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cacheKey(sum, tt.a) == cacheKey(sum, tt.b); got != tt.same {
				t.Errorf("keys equal = %v, want %v (%q, %q)", got, tt.same, cacheKey(sum, tt.a), cacheKey(sum, tt.b))
			}
		})
	}
	if cacheKey(sum, Input{}) != sum || cacheKey("", Input{Fingerprint: "x"}) != "" {
		t.Error("a plugin without input, or without a recorded sum, must keep the plain key")
	}
}

// A plugin whose Describe depends on an input is served from the cache
// only while the input's fingerprint is unchanged.
func TestDescribeCacheKeyedByInput(t *testing.T) {
	dir, cache := pluginDir(t, "fixture"), t.TempDir()
	describe := func(in Input) bool {
		t.Helper()
		m, err := New(Config{Dirs: []Dir{{Path: dir, Origin: OriginBuiltin}}, CacheDir: cache, Home: t.TempDir(),
			Inputs: map[string]Input{"fixture": in}})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		d, err := m.Describe(context.Background(), "fixture")
		if err != nil {
			t.Fatal(err)
		}
		if d.Cached != (m.Statuses()[0].State != "running") {
			t.Errorf("cached = %v but the plugin state is %s", d.Cached, m.Statuses()[0].State)
		}
		return d.Cached
	}
	a := Input{ToolsRoot: "/core/agent/tools", CoreDir: "/core", Fingerprint: "a"}
	if describe(a) {
		t.Fatal("the first describe came from an empty cache")
	}
	if !describe(a) {
		t.Error("an unchanged input missed the cache")
	}
	if describe(Input{ToolsRoot: a.ToolsRoot, CoreDir: a.CoreDir, Fingerprint: "b"}) {
		t.Error("a changed fingerprint was served from the cache")
	}
	if describe(Input{}) {
		t.Error("a plugin without input was served the entry of one with input")
	}
}
