package toolhost

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"demiurge.dev/host/sandboxing"
)

// placeSandboxHelper puts the real re-exec helper beside the built-in
// plugins, where make build puts it: authored tools fail closed without
// it. It is copied from DEMIURGE_TEST_PLUGIN_DIR or built.
func placeSandboxHelper(dir string) error {
	dst := filepath.Join(dir, sandboxing.HelperName)
	if src := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR"); src != "" {
		if b, err := os.ReadFile(filepath.Join(src, sandboxing.HelperName)); err == nil {
			return os.WriteFile(dst, b, 0o755)
		}
	}
	if b, err := exec.Command("go", "build", "-o", dst, "demiurge.dev/cmd/sandbox").CombinedOutput(); err != nil {
		return fmt.Errorf("build the sandbox helper: %w\n%s", err, b)
	}
	return nil
}
