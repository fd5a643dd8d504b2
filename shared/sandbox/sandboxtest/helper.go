// Package sandboxtest gives tests the real re-exec helper
// (demiurge-sandbox): the one `make build` put in DEMIURGE_TEST_PLUGIN_DIR,
// or one built once per test binary from demiurge.dev/cmd/sandbox (which
// needs the go.work of the repository).
package sandboxtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"demiurge.dev/shared/sandbox"
)

// HelperName is the helper's file name beside the plugins.
const HelperName = "demiurge-sandbox"

var (
	once sync.Once
	path string
	err  error
	log  []byte
)

// Helper returns the helper's path, failing t when it cannot be had.
func Helper(t testing.TB) string {
	t.Helper()
	once.Do(func() {
		if d := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR"); d != "" {
			if p := filepath.Join(d, HelperName); fileExists(p) {
				path = p
				return
			}
		}
		var dir string
		if dir, err = os.MkdirTemp("", "sandbox-helper-"); err != nil {
			return
		}
		path = filepath.Join(dir, HelperName)
		// The helper and, beside it, its first stage as make build puts them.
		for _, b := range [][2]string{{path, "demiurge.dev/cmd/sandbox"}, {filepath.Join(dir, sandbox.FirstStageName), "demiurge.dev/cmd/sandbox/first"}} {
			cmd := exec.Command("go", "build", "-o", b[0], b[1])
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as make build builds it
			if log, err = cmd.CombinedOutput(); err != nil {
				return
			}
		}
	})
	if err != nil {
		t.Fatalf("build the sandbox helper: %v\n%s", err, log)
	}
	return path
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
