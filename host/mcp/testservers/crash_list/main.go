// Command crash_list initializes normally and exits with a message on
// stderr when asked for its tools.
package main

import "demiurge.dev/host/mcp/testservers/internal/servers"

func main() { servers.CrashList() }
