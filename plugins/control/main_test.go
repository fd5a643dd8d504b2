package main

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// serveChildEnv makes the test binary serve the toolset, as the plugin
// binary does, so a test can start it as a real plugin process.
const serveChildEnv = "CONTROL_TEST_SERVE_TOOLSET"

func TestMain(m *testing.M) {
	if os.Getenv(serveChildEnv) != "" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
