// Package sdktest helps a toolset's tests run it as the host does: as a
// real plugin process, over go-plugin's gRPC.
package sdktest

import (
	"os/exec"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"demiurge.dev/shared"
)

// Start starts cmd as a toolset plugin with the host's handshake and
// transport settings and returns the plugin client and its Toolset client.
// The process is killed when the test ends; a test that wants the
// graceful stop calls the plugin client's Kill itself first.
func Start(t testing.TB, cmd *exec.Cmd) (*plugin.Client, *shared.ToolsetClient) {
	t.Helper()
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(&shared.ToolsetPlugin{}),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		SkipHostEnv:      true,
		StartTimeout:     30 * time.Second,
		Logger:           hclog.NewNullLogger(),
		GRPCDialOptions:  shared.GRPCDialOptions(),
	})
	t.Cleanup(client.Kill)
	rpc, err := client.Client()
	if err != nil {
		t.Fatalf("start the toolset: %v", err)
	}
	raw, err := rpc.Dispense(shared.PluginName)
	if err != nil {
		t.Fatal(err)
	}
	return client, raw.(*shared.ToolsetClient)
}
