// Package shared is the contract between the Demiurge host and its toolset
// plugins: the handshake, the protocol versions and the go-plugin glue.
package shared

import (
	"context"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"demiurge.dev/shared/protocolversion"
	"demiurge.dev/shared/toolsetv1"
)

// ProtocolVersion is the toolset protocol spoken by this build. A plugin
// built for another version is refused at the handshake.
const ProtocolVersion = protocolversion.Version

// ProtocolMinor counts additive changes within ProtocolVersion. 1 added
// EffectRequest.redact_values and output_cap_bytes, InvokeEvent.spawned and
// DescribeResponse.problems; a plugin of minor 0 still works (it ignores
// them: the host redacts and bounds what it receives anyway). 2 added
// EffectRequest.timezone and skills_root, ToolListing.disclosure and the
// HostServices RPCs Clarify, TodoRead, TodoWrite, SessionSearch and
// SearchCapabilities; a plugin of minor 1 still works (it does not call
// them, and a command it starts keeps the host's zone). 3 added
// EffectRequest.paths (the host-resolved path of each path subject); a
// plugin of minor 2 still works, and since plugins start in the workspace
// root, a relative argument it opens as given names the same file. 4
// added the HostServices RPC CallTool (a pipeline slot's tool calls); a
// plugin of minor 3 still works (it does not call it). 5 added the
// HostServices RPC DelegateTask, answered only for the built-in
// delegate_task; a plugin of minor 4 still works. 6 added the HostServices
// RPCs SpawnAgent and AgentTask (authored code's ctx.agents); a plugin of
// minor 5 still works (it does not call them). 7 added the HostServices RPC
// ScheduleManage, answered only for the built-in schedule_manage; a plugin
// of minor 6 still works. 8 added the HostServices RPC CoreControl,
// answered only for the built-in rollback_core; a plugin of minor 7 still
// works. 9 added ToolSpec.host_services: a tool declares the HostServices
// it calls, and the host answers them only for a built-in toolset's tool
// that declares them (no longer by the tool's name), and
// ToolSpec.approval_preview (a built-in tool's diff preview, no longer
// chosen by name); a third-party plugin of minor 8 still works (it was
// never answered, and its calls show their arguments).
// (The number itself is protocolversion.Minor: bump it there.)
const ProtocolMinor = protocolversion.Minor

// PluginName is the name of the one plugin a toolset binary serves.
const PluginName = "toolset"

// MaxMessageBytes raises gRPC's 4 MiB default on both sides. Large outputs
// go to artifacts; this only keeps big schemas and results from failing.
const MaxMessageBytes = 64 << 20

// Handshake is the magic cookie a toolset binary checks before it serves,
// so that running one by hand prints a hint instead of hanging.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "DEMIURGE_TOOLSET_PLUGIN",
	MagicCookieValue: "c2c0f1de-6d3b-4f49-9a8e-0a4f3e7d4c1b",
}

// FlowWindowBytes is the fixed HTTP/2 flow-control window of a plugin
// connection, per stream and per connection, on both sides. gRPC's default
// is 64 KiB grown by bandwidth-delay probing: a PING sent on data received
// (when none is out), answered by the peer; on a plugin connection that is
// once each way in every call. Between two processes on one machine there
// is no bandwidth to probe, and the PINGs and their answers were more
// wake-ups and socket writes in every round trip (a read_file round trip
// about 10% slower at p50, BENCHMARKS.md stop 47). A fixed window
// turns the probing off; 4 MiB lets a 1 MiB result through without waiting
// for a window update, and is below the 16 MiB the probing may grow to.
const FlowWindowBytes = 4 << 20

// GRPCServerOptions are the call limits and flow control both sides apply.
func GRPCServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxMessageBytes),
		grpc.MaxSendMsgSize(MaxMessageBytes),
		grpc.StaticStreamWindowSize(FlowWindowBytes),
		grpc.StaticConnWindowSize(FlowWindowBytes),
	}
}

// GRPCDialOptions are the client side of GRPCServerOptions.
func GRPCDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithDefaultCallOptions(
			grpc.MaxCallRecvMsgSize(MaxMessageBytes),
			grpc.MaxCallSendMsgSize(MaxMessageBytes),
		),
		grpc.WithStaticStreamWindowSize(FlowWindowBytes),
		grpc.WithStaticConnWindowSize(FlowWindowBytes),
	}
}

// ToolsetPlugin is the go-plugin glue for the Toolset service. The plugin
// side sets Server; the host side leaves it nil.
type ToolsetPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	// Impl builds the plugin's Toolset server; it receives the broker so
	// that Configure can dial the host's HostServices.
	Impl func(broker *plugin.GRPCBroker) toolsetv1.ToolsetServer
}

// GRPCServer registers the plugin's implementation.
func (p *ToolsetPlugin) GRPCServer(broker *plugin.GRPCBroker, s *grpc.Server) error {
	toolsetv1.RegisterToolsetServer(s, p.Impl(broker))
	return nil
}

// GRPCClient gives the host a client and the broker it serves HostServices on.
func (p *ToolsetPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (interface{}, error) {
	return &ToolsetClient{ToolsetClient: toolsetv1.NewToolsetClient(conn), Broker: broker}, nil
}

// ToolsetClient is what the host gets from Dispense.
type ToolsetClient struct {
	toolsetv1.ToolsetClient
	Broker *plugin.GRPCBroker
}

// VersionedPlugins is the plugin set for every protocol version this build
// speaks, for both plugin.ServeConfig and plugin.ClientConfig.
func VersionedPlugins(p *ToolsetPlugin) map[int]plugin.PluginSet {
	return map[int]plugin.PluginSet{
		ProtocolVersion: {PluginName: p},
	}
}
