// Command echo is a healthy MCP test server: echo, a tool whose schema has
// top-level anyOf, oneOf and $defs (it must reach the catalog unchanged),
// the environment it was given, its process ids, and (SPAWN_CHILD=1) a
// child process of its own, to show that closing kills the whole tree.
package main

import "demiurge.dev/host/mcp/testservers/internal/servers"

func main() { servers.Echo() }
