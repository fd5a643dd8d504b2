package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"demiurge.dev/plugins/coding/terminal"
)

// serveChildEnv makes the test binary serve the toolset, as the plugin
// binary does, so a test can start it as a real plugin process.
const serveChildEnv = "CODING_TEST_SERVE_TOOLSET"

func TestMain(m *testing.M) {
	// The plugin started from this binary starts a copy of it as the
	// terminal's reaper; that copy must reap, not run the tests again.
	terminal.MaybeRunReaper()
	if os.Getenv(serveChildEnv) != "" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
