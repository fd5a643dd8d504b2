// Package mcp makes MCP servers a source of tools. Each server is declared
// by a manifest under the core's slots.mcp (host/core parses them); per
// turn a Pool resolves which servers may connect (every one for a
// listing, ResolveFor only the ones that can offer a called tool) (the mcp.connect:<id>
// capability and the connect approval, both before any client is made or
// any process started), connects and discovers them within their connect
// timeout, at most four at once across the runtime, and hands the catalog
// one source per healthy server. Every tool is named <id>__<tool>, its
// name converted to the providers' alphabet by one rule (safename.go),
// keeps its raw input schema and is called through dispatch with an
// Adapter bound to the connection it was discovered on. Each tool's
// definition is pinned on the server's first connect; a changed or new
// one is quarantined until `demiurge mcp review` accepts it (pins.go).
// The manifest pins the protocol era (protocol.go). A server on a private
// address is reached only under the operator's exact allowance
// (private.go).
//
// Connections are bound to the authority (principal, session, core
// revision, capabilities, effective policy): a change of any closes them
// all. Each server's connection is also bound to its declaration: a
// changed manifest closes that server only, and the replacement needs a
// fresh connect approval. A failed server is retried after a negative-cache
// window (30 s); a denied one is asked again the next turn, unless the
// operator answered "n" (never in this session): then it is refused
// without a question until the session ends or its declaration changes
// (mcp test asks again).
//
// Stdio servers run with the host's allowlisted environment plus the
// manifest's env (never PATH, HOME or a variable that steers how programs
// are loaded or configured: the card shows env by name only), in their own
// process group, killed as a tree on close;
// the tail of their stderr is redacted into logs/mcp-stderr.log.
// Streamable HTTP servers are reached only through shared/netpolicy.
package mcp
