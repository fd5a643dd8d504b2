// Command garbage_stdout writes lines that are not JSON-RPC (text, binary,
// half objects) before every message it sends, and otherwise works.
package main

import "demiurge.dev/host/mcp/testservers/internal/servers"

func main() { servers.GarbageStdout() }
