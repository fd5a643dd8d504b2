package hostv1

// ProtocolVersion is the front end ↔ host protocol of this build
// (shared/proto/demiurge/host/v1). A host of another version refuses a
// front end at Hello with a message saying which to stop or rebuild.
const ProtocolVersion = 1

// ProtocolMinor counts additive changes within ProtocolVersion. 1 added
// Audit and the front end's --approve rules (OpenSession.approve,
// MCPChunk.approve); 2 added Conversations; 3 added headless runs (RunTurn, the
// event, env and ended messages, OpenSession.resume); 4 added
// OpenSession.session; 5 added Schedules and StatusResponse's schedule
// fields; 6 added the interactive session (RunTurn.chat, RunEnded.model,
// clarify requests and answers, call output) and Tasks; 7 added
// `mcp serve --http` through the host (ServeMCPHTTP, MCPHTTPConn) and a
// session's own catalog on its stream (FrontEndMessage.catalog); 8 added
// MCPReview (`mcp review` in the host); 9 added MCPStates (`mcp
// list|test`) and Plugins (`plugins list|verify`); 10 added the editor's
// own capabilities as policed tools (OpenSession.editor, the editor
// request and reply); 11 added the rendered card to an approval
// request's JSON (`card`, for a small front end); 12 added
// SchedulesRequest.fingerprint (approve names what the operator read,
// and a host refuses an approve without it); a front end checks
// the host's minor before it calls what a
// minor added (Client.Needs), so an older host gets a clear message.
const ProtocolMinor = 12

// TokenMetadata is the gRPC metadata key a front end sends the host
// socket's token under.
const TokenMetadata = "demiurge-host-token"

// MaxRequestBytes bounds one message a front end sends the host; a larger
// one is refused (ResourceExhausted) and the host goes on.
const MaxRequestBytes = 16 << 20

// MaxReplyBytes bounds one message a host sends a front end.
const MaxReplyBytes = 64 << 20
