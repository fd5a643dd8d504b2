// Package mcpbind is what `mcp serve --http` decides before any host is
// involved: where the endpoint is served and which bind addresses are
// allowed. It links nothing but the standard library, so that the small
// front end (bin/demiurge-front) judges an address exactly as the full
// CLI and the host do (host/mcpserve uses it).
package mcpbind

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// EndpointPath is where the MCP endpoint is served.
const EndpointPath = "/mcp"

// CheckBind refuses a bind address that is not loopback unless public is
// set, and a public bind without an operator-given token.
func CheckBind(addr string, public, tokenGiven bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: want HOST:PORT such as 127.0.0.1:7777: %w", addr, err)
	}
	if IsLoopbackHost(host) {
		return nil
	}
	if !public {
		return fmt.Errorf("--http %s is not a loopback address; serving beyond this machine needs --listen-public (and --token-file)", addr)
	}
	if !tokenGiven {
		return errors.New("--listen-public needs --token-file: a public endpoint is not served with a token printed on a terminal")
	}
	return nil
}

// IsLoopbackHost says whether host (a name or an address, bracketed or
// not) is this machine's loopback.
func IsLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(host, "[]"))
	return err == nil && ip.Unmap().IsLoopback()
}
