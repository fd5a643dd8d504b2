// Command bad_name offers one good tool beside tools whose names no
// provider accepts once prefixed (a space, a dot, too long, non-ASCII) and
// one with a schema that is not an object.
package main

import "demiurge.dev/host/mcp/testservers/internal/servers"

func main() { servers.BadName() }
