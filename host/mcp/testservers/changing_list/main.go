// Command changing_list offers a different tool on each start: it counts
// its starts in $COUNTER_AT and offers v<N>.
package main

import "demiurge.dev/host/mcp/testservers/internal/servers"

func main() { servers.ChangingList() }
