package sandboxing

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestToolchainPathsOpenWhatTheToolchainNeeds: a PATH entry inside a
// toolchain home opens the parts of it the toolchain runs from (cargo's
// bin and registry and the sibling rustup, pyenv's whole home), never the
// home directory or cargo's credentials; an unknown home entry stays
// closed unless the operator lists it.
func TestToolchainPathsOpenWhatTheToolchainNeeds(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".cargo/bin", ".cargo/registry", ".rustup/toolchains", ".pyenv/shims", ".pyenv/versions", "bin", "tools/x"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".cargo", "credentials.toml"), []byte("token"), 0o600); err != nil {
		t.Fatal(err)
	}
	h := func(p string) string { return filepath.Join(home, p) }
	got := ToolchainPaths(h(".cargo/bin")+":"+h(".pyenv/shims")+":/usr/bin", h("tools/x"))
	for _, want := range []string{h(".cargo/bin"), h(".cargo/registry"), h(".rustup"), h(".pyenv"), "/usr/bin", h("tools/x")} {
		if !slices.Contains(got, want) {
			t.Errorf("%v lacks %s", got, want)
		}
	}
	for _, never := range []string{home, h(".cargo"), h(".cargo/credentials.toml"), h("bin")} {
		if slices.Contains(got, never) {
			t.Errorf("%v opens %s", got, never)
		}
	}
}
