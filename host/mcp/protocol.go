package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/mark3labs/mcp-go/mcp"
)

// The manifest pins each server's protocol version (protocol_version,
// default 2025-11-25), and the connection speaks exactly that era:
//
//   - 2025-11-25 and earlier: the initialize handshake (mcp-go skips its
//     server/discover probe for a pinned legacy version);
//   - 2026-07-28: the stateless core, server/discover and every request
//     carrying its protocol version, client info and capabilities in
//     _meta (and over HTTP the Mcp-Method and Mcp-Name headers).
//
// A server that settles on another version than the pinned one is
// refused: a stateless pin that fell back to initialize would talk to a
// server the operator did not describe.

// checkPinnedProtocol refuses a negotiated version that is not the
// manifest's pin, saying which to pin instead.
func checkPinnedProtocol(pinned, negotiated string) error {
	if negotiated == pinned {
		return nil
	}
	if mcp.IsModernProtocol(pinned) && !mcp.IsModernProtocol(negotiated) {
		return fmt.Errorf("the manifest pins protocol_version %s (stateless, server/discover), but the server does not answer server/discover and speaks %s through initialize; pin protocol_version: %s if that is the server you meant", pinned, negotiated, negotiated)
	}
	return fmt.Errorf("the manifest pins protocol_version %s, but the server answered with %s; pin the version the server speaks", pinned, negotiated)
}

// statelessRequest is a request's params with the _meta the stateless
// core requires on every request, and the standard headers an HTTP
// request of it carries. The host sends tools/list itself (conn.listTools)
// to keep schemas raw, so it adds what mcp-go's client adds to its own.
func statelessRequest(version string, method mcp.MCPMethod, params map[string]any) (map[string]any, http.Header) {
	out := make(map[string]any, len(params)+1)
	for k, v := range params {
		out[k] = v
	}
	out["_meta"] = map[string]any{
		mcp.MetaKeyProtocolVersion:    version,
		mcp.MetaKeyClientInfo:         clientInfo,
		mcp.MetaKeyClientCapabilities: clientCapabilities,
	}
	header := http.Header{}
	if encoded, err := json.Marshal(out); err == nil {
		for k, v := range mcp.StandardHeaders(version, method, encoded) {
			header.Set(k, v)
		}
	}
	return out, header
}
