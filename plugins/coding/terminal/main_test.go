package terminal

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// writerChildEnv makes the test binary act as a command that writes given
// pieces to stdout one write at a time (see writePieces).
const writerChildEnv = "TERMINAL_TEST_WRITE_PIECES"

func TestMain(m *testing.M) {
	if spec := os.Getenv(writerChildEnv); spec != "" {
		os.Exit(writePieces(spec))
	}
	goleak.VerifyTestMain(m)
}
