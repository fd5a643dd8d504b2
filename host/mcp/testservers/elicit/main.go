// Command elicit is an MCP test server whose tool asks the client for a
// form during the call (elicitation/create).
package main

import "demiurge.dev/host/mcp/testservers/internal/servers"

func main() { servers.Elicit() }
