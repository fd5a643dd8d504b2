// Command hang_init reads its stdin and never answers: it hangs in
// initialize, and stays up after stdin closes, so only a kill ends it.
package main

import "demiurge.dev/host/mcp/testservers/internal/servers"

func main() { servers.HangInit() }
