package agents_test

import (
	"os"
	"testing"

	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/sandboxing"
)

var pluginDir string

// TestMain builds the real coding, demiurge_control, authored and schedule plugins (or takes
// them from DEMIURGE_TEST_PLUGIN_DIR) and the sandbox helper beside them.
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "agents-plugins-")
	if err != nil {
		panic(err)
	}
	pluginDir = tmp
	for _, p := range [][2]string{{"coding", "demiurge.dev/plugins/coding"}, {"demiurge_control", "demiurge.dev/plugins/control"}, {"authored", "demiurge.dev/plugins/authored"}, {"schedule", "demiurge.dev/plugins/schedule"}} {
		if err := plugintest.BuildOrCopy(pluginDir, p[0], p[1]); err != nil {
			panic(err)
		}
	}
	if err := plugintest.PlaceSandboxHelper(pluginDir, sandboxing.HelperName); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(tmp)
	mcptest.Cleanup()
	os.Exit(code)
}
