// Package mcpserve serves the policed catalog over MCP: `demiurge mcp
// serve`. It is a caller of dispatch, like the CLI and the turn loop:
// every tools/call is one dispatch.Call of the client's own session, so the
// guard, approvals, redaction and audit stand in front of every tool.
//
// The MCP side is mark3labs/mcp-go's server (v1.2.1). Both it and the
// official go-sdk (v1.8.0) negotiate 2025-11-25 and 2026-07-28; mcp-go is
// the one the host's MCP client already uses (one MCP implementation in the
// binary), it serves both protocol eras on one endpoint (stateful
// 2025-11-25 sessions and stateless 2026-07-28 requests), and its
// multi round-trip bridge turns one input-required handler into an
// elicitation/create for 2025-11-25 clients.
//
// Identity: a stdio server has one client, a streamable HTTP server one
// per Mcp-Session-Id; each is its own toolhost session (served.go in
// toolhost) under the operator's principal. Clients on the stateless
// 2026-07-28 revision have no connection to tell them apart: they share
// one session of the server, so over HTTP they are not offered an allow
// for the session (it would be one for all of them).
//
// The MCP tasks extension (2025-11-25) is offered in mcp-go's hybrid mode:
// every tool may be called as a task. mcp-go runs such a call on the
// request's context, which over streamable HTTP ends as soon as the
// create-task answer is written, so the run is detached and linked back to
// tasks/cancel, its ttl and its client's session (tasks.go). A task asks
// nobody: the operator's rules and the session's allows decide it. Background
// work also goes through Demiurge's own tasks (a background terminal call
// answers with its task id; task_status, yield_until, task_control,
// task_list).
package mcpserve
