// Command protocol2 speaks toolset protocol 2, which this host does not;
// the host must refuse it naming both versions.
package main

import (
	"github.com/hashicorp/go-plugin"

	"demiurge.dev/shared"
	"demiurge.dev/shared/toolsetv1"
)

type unimplemented struct {
	toolsetv1.UnimplementedToolsetServer
}

func main() {
	hs := shared.Handshake
	hs.ProtocolVersion = 2
	p := &shared.ToolsetPlugin{Impl: func(*plugin.GRPCBroker) toolsetv1.ToolsetServer { return unimplemented{} }}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig:  hs,
		VersionedPlugins: map[int]plugin.PluginSet{2: {shared.PluginName: p}},
		GRPCServer:       plugin.DefaultGRPCServer,
	})
}
