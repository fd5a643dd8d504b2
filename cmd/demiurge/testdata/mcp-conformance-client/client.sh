#!/bin/sh
# The MCP conformance suite's client under test: Demiurge's MCP client.
# The suite runs it with the scenario's server URL as the last argument
# and the scenario's name in $MCP_CONFORMANCE_SCENARIO. It writes a core
# whose one manifest names that URL, allows that loopback address as the
# operator would (--allow-private-mcp), connects through the connect gate
# and calls what the scenario offers. $DEMIURGE_BIN is the binary.
set -eu
# The suite names its server localhost, a name the URL policy refuses
# whatever the allowance (it always means loopback); the operator gives
# the address itself.
url=$(printf '%s' "$1" | sed -E 's#^(https?://)localhost([:/])#\1127.0.0.1\2#')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/core/agent/mcp" "$work/ws"
cat > "$work/core/agent.yaml" <<YAML
toolsets: []
slots:
  mcp: agent/mcp
capabilities: ["mcp.connect:conf", "mcp.call:conf"]
YAML
printf 'url: %s\nconnect_timeout_seconds: 20\n' "$url" > "$work/core/agent/mcp/conf.yaml"
# The sse-retry server answers initialize with 2025-03-26 whatever the
# client asks for, and the host speaks exactly the pinned version: the
# operator pins what the server speaks.
if [ "${MCP_CONFORMANCE_SCENARIO:-}" = sse-retry ]; then
	printf 'protocol_version: 2025-03-26\n' >> "$work/core/agent/mcp/conf.yaml"
fi
# host:port of the URL, for the operator's allowance.
addr=$(printf '%s' "$url" | sed -E 's#^[a-z]+://([^/]+).*#\1#')
d() {
	"$DEMIURGE_BIN" --core "$work/core" --workspace "$work/ws" --state "$work/state" \
		--allow-private-mcp "conf=$addr" --approve allow:mcp_connect__conf "$@" </dev/null
}
call() {
	d --approve "allow:$1" tools call "$1" "$2"
}
case "${MCP_CONFORMANCE_SCENARIO:-initialize}" in
tools_call) call conf__add_numbers '{"a":2,"b":3}' ;;
sse-retry) call conf__test_reconnection '{}' ;;
elicitation-sep1034-client-defaults)
	# The server's form goes to the operator, who accepts it (with its
	# declared defaults) by this rule.
	d --approve allow:mcp_elicit__conf --approve allow:conf__test_client_elicitation_defaults \
		tools call conf__test_client_elicitation_defaults '{}'
	;;
*)
	# initialize, and any scenario whose tools are called without
	# arguments: list them, then call each.
	d mcp test conf
	for tool in $(d mcp test conf | sed -n 's/^tool: //p'); do
		call "$tool" '{}' || true
	done
	;;
esac
