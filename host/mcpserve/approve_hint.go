package mcpserve

// ServeApproveHint is how the operator approves what a client that cannot
// answer (no elicitation) was denied: a rule on the serve command line,
// which the client's configuration holds. %s is the rule's TOOL[:PATH].
const ServeApproveHint = "the operator approves it with --approve allow:%s on the `demiurge mcp serve` command line " +
	`(in the MCP client's configuration of this server: "args": ["--approve", "allow:%[1]s", "mcp", "serve"])`
