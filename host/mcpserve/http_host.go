package mcpserve

import (
	"net"
	"net/http"
	"strings"

	"demiurge.dev/host/mcpserve/mcpbind"
)

// reboundHost is mcp-go's DNS rebinding rule (server/http_localhost.go,
// v1.2.1), checked here first so that its refusal closes the connection
// as our other refusals do (mcp-go's own 403 keeps it open): a request
// that came to a loopback address must name a loopback Host
// ("localhost", "127.0.0.1", "[::1]", with or without a port). A request
// to any other address passes, as in mcp-go.
func reboundHost(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil {
		return false
	}
	return loopbackHostPort(local.String()) && !loopbackHostPort(r.Host)
}

// loopbackHostPort: addr, a host or host:port, names this machine's
// loopback (mcp-go's isLoopbackHost: brackets trimmed before the
// "localhost" comparison).
func loopbackHostPort(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	return mcpbind.IsLoopbackHost(host)
}
