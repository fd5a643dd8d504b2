// Command scripted is an MCP test server that speaks JSON-RPC by hand and
// misbehaves as its environment says: it hangs in or fails a chosen
// method, lists the tools it is given (duplicates too), and echoes its
// configuration in its errors.
package main

import "demiurge.dev/host/mcp/testservers/internal/servers"

func main() { servers.Scripted() }
