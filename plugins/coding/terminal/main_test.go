package terminal

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"demiurge.dev/shared/procfd"
)

// writerChildEnv makes the test binary act as a command that writes given
// pieces to stdout one write at a time (see writePieces).
const writerChildEnv = "TERMINAL_TEST_WRITE_PIECES"

// pluginChildEnv makes the test binary act as a plugin that runs a tree
// with a reaper and then waits to be killed (see TestTreesDieWithAKilledPlugin).
const pluginChildEnv = "TERMINAL_TEST_PLUGIN"

func TestMain(m *testing.M) {
	MaybeRunReaper()
	if spec := os.Getenv(writerChildEnv); spec != "" {
		os.Exit(writePieces(spec))
	}
	if os.Getenv(pluginChildEnv) != "" {
		runPluginChild()
	}
	// What sdk.Serve does first in a real plugin: the descriptors this
	// test binary inherited (from go test, from the shell) stay here.
	if err := procfd.CloseOnExecAbove2(); err != nil {
		panic(err)
	}
	goleak.VerifyTestMain(m)
}
