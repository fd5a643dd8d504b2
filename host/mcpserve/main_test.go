package mcpserve

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/sandboxing"
)

// builtinDir holds the real built-in plugins the served host runs.
var builtinDir string

// TestMain builds the coding and demiurge_control toolsets (or takes them
// from DEMIURGE_TEST_PLUGIN_DIR) and the sandbox helper beside them.
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "mcpserve-plugins-")
	if err != nil {
		panic(err)
	}
	builtinDir = filepath.Join(tmp, "builtin")
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(plugintest.BuildOrCopy(builtinDir, "coding", "demiurge.dev/plugins/coding"))
	must(plugintest.BuildOrCopy(builtinDir, "demiurge_control", "demiurge.dev/plugins/control"))
	must(plugintest.PlaceSandboxHelper(builtinDir, sandboxing.HelperName))
	code := m.Run()
	os.RemoveAll(tmp)
	if code == 0 {
		// Every served session, watcher and HTTP server ends with its test.
		if err := goleak.Find(goleak.IgnoreAnyFunction("demiurge.dev/host/plugins.newSpawner.func1"),
			goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
			goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
			// bleve's process-wide analysis workers, started once by the
			// session_search index and never stopped.
			goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker"),
			// mcp-go forgets each MCP task when its ttl (at most MaxTaskTTL)
			// has passed, in a goroutine that sleeps until then.
			goleak.IgnoreAnyFunction("github.com/mark3labs/mcp-go/server.(*MCPServer).scheduleTaskCleanup")); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}
