// Command huge_list offers HUGE_COUNT (default 3000) tools, 100 per page.
package main

import "demiurge.dev/host/mcp/testservers/internal/servers"

func main() { servers.HugeList() }
