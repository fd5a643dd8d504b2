// Command never_returns has a tool that never answers: it waits until the
// client cancels the request, then writes "cancelled" to $MARKER_AT
// (and the reason it was given to $REASON_AT).
package main

import "demiurge.dev/host/mcp/testservers/internal/servers"

func main() { servers.NeverReturns() }
