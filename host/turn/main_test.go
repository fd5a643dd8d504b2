package turn_test

import (
	"os"
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
	must(plugintest.PlaceSandboxHelper(pluginDir, sandboxing.HelperName))
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
