package sdk

import (
	"fmt"
	"os"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"demiurge.dev/shared"
	"demiurge.dev/shared/procfd"
	"demiurge.dev/shared/toolsetv1"
)

// Toolset is what a plugin's main hands to Serve.
type Toolset struct {
	Name    string
	Version string // semver
	// Tools is the one constructor list of the toolset: every tool the
	// plugin serves is made here, never as a package-level singleton.
	Tools func() []Tool
}

// Serve runs the toolset as a Demiurge plugin until the host goes away. It
// logs JSON to stderr (go-plugin relays it to the host) and exits when the
// host process dies, even if the host could not stop it.
func Serve(ts Toolset) {
	// Nothing this process inherited beyond stdio (the host's sealed image
	// of this binary, whatever the host was given) passes to what it runs.
	if err := procfd.CloseOnExecAbove2(); err != nil {
		fmt.Fprintf(os.Stderr, "toolset %s: mark descriptors close-on-exec: %v\n", ts.Name, err)
		os.Exit(1)
	}
	if err := nonDumpable(); err != nil {
		fmt.Fprintf(os.Stderr, "toolset %s: make the process non-dumpable: %v\n", ts.Name, err)
		os.Exit(1)
	}
	log := hclog.New(&hclog.LoggerOptions{
		Name: ts.Name, JSONFormat: true, Output: os.Stderr,
		Level: hclog.LevelFromString(os.Getenv("DEMIURGE_PLUGIN_LOG_LEVEL")),
	})
	tools := ts.Tools()
	if _, err := newServer(ts, tools, nil, log); err != nil {
		fmt.Fprintf(os.Stderr, "toolset %s: %v\n", ts.Name, err)
		os.Exit(1)
	}
	go exitWhenOrphaned(os.Getppid(), time.Second)
	var servers []*server
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(&shared.ToolsetPlugin{
			Impl: func(broker *plugin.GRPCBroker) toolsetv1.ToolsetServer {
				s, _ := newServer(ts, tools, broker, log) // validated above
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
}

// exitWhenOrphaned is the watchdog behind the host's Pdeathsig: when the
// parent changes, the host is gone and nobody will call us again.
func exitWhenOrphaned(parent int, every time.Duration) {
	for {
		time.Sleep(every)
		if os.Getppid() != parent {
			os.Exit(0)
		}
	}
}
