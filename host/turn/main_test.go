package turn_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/sandboxing"
)

var pluginDir string

// TestMain builds the real coding and demiurge_control plugins (or takes
// them from DEMIURGE_TEST_PLUGIN_DIR) and the sandbox helper beside them.
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "turn-plugins-")
	if err != nil {
		panic(err)
	}
	pluginDir = tmp
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(plugintest.BuildOrCopy(pluginDir, "coding", "demiurge.dev/plugins/coding"))
	must(plugintest.BuildOrCopy(pluginDir, "demiurge_control", "demiurge.dev/plugins/control"))
	must(placeHelper(pluginDir))
	code := m.Run()
	os.RemoveAll(tmp)
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreAnyFunction("demiurge.dev/host/plugins.newSpawner.func1"),
			// The Gemini SDK's dependencies start this at init.
			goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"),
			// bleve's process-wide analysis workers (the session_search index).
			goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker")); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}

func placeHelper(dir string) error {
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
