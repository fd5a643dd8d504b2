// Command demiurge-toolset-authored is the authored-tool runtime: it finds
// the tools of a core's slots.tools root (agent/tools/<tool_id>/tool.yaml),
// describes them as tool.yaml declares them, and runs their entrypoints
// (module.py's execute(ctx, args) through the Python bridge, or an
// executable speaking the worker protocol) in warm worker processes.
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"demiurge.dev/sdk"
	"demiurge.dev/shared"
	"demiurge.dev/shared/toolsetv1"
)

// Name is the toolset name; Version its semver, separate from the host's.
const (
	Name    = "authored"
	Version = "0.1.0"
)

func main() {
	if os.Getenv(shared.Handshake.MagicCookieKey) != shared.Handshake.MagicCookieValue {
		fmt.Fprintln(os.Stderr, "demiurge-toolset-authored is a Demiurge toolset plugin; demiurge starts it when a core declares slots.tools")
		os.Exit(1)
	}
	// Before any secret arrives: no command or tool of the same user may
	// read this process's environment or memory (sdk.NonDumpable).
	if err := sdk.NonDumpable(); err != nil {
		fmt.Fprintf(os.Stderr, "toolset %s: make the process non-dumpable: %v\n", Name, err)
		os.Exit(1)
	}
	log := hclog.New(&hclog.LoggerOptions{
		Name: Name, JSONFormat: true, Output: os.Stderr,
		Level: hclog.LevelFromString(os.Getenv("DEMIURGE_PLUGIN_LOG_LEVEL")),
	})
	r := newRunner()
	go exitWhenOrphaned(os.Getppid(), time.Second, r)
	var servers []*server
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(&shared.ToolsetPlugin{
			Impl: func(broker *plugin.GRPCBroker) toolsetv1.ToolsetServer {
				s := newServer(func(id uint32) (*grpc.ClientConn, error) {
					return broker.DialWithOptions(id, shared.GRPCDialOptions()...)
				}, r, log)
				servers = append(servers, s)
				return s
			},
		}),
		GRPCServer: func(opts []grpc.ServerOption) *grpc.Server {
			return grpc.NewServer(append(opts, shared.GRPCServerOptions()...)...)
		},
		Logger: log,
	})
	for _, s := range servers {
		s.close()
	}
	r.close()
}

// exitWhenOrphaned is the watchdog behind the host's Pdeathsig: when the
// parent changes, the host is gone; the workers go with the plugin.
func exitWhenOrphaned(parent int, every time.Duration, r *runner) {
	for {
		time.Sleep(every)
		if os.Getppid() != parent {
			r.close()
			os.Exit(0)
		}
	}
}
