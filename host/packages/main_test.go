package packages

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks for leaked goroutines after the end-to-end tests, which
// run a real host with real plugin processes. The plugin manager's spawner
// threads live for the process by design.
func TestMain(m *testing.M) {
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreAnyFunction("demiurge.dev/host/plugins.newSpawner.func1"),
			// bleve's process-wide analysis workers, started once by the
			// session_search index and never stopped.
			goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker")); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}
