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
		if err := goleak.Find(goleak.IgnoreAnyFunction("demiurge.dev/host/plugins.newSpawner.func1")); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}
