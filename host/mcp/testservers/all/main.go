// Command all is every failure-case MCP test server in one binary: it runs
// the one named by the name it was called by (see servers.ByName).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"demiurge.dev/host/mcp/testservers/internal/servers"
)

func main() {
	run, ok := servers.ByName[filepath.Base(os.Args[0])]
	if !ok {
		fmt.Fprintf(os.Stderr, "call this binary by a server's name, not %q\n", filepath.Base(os.Args[0]))
		os.Exit(2)
	}
	run()
}
