package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"

	"demiurge.dev/host/egress"
	"demiurge.dev/shared"
	"demiurge.dev/shared/toolsetv1"
)

// instance is one running plugin process and its HostServices server.
type instance struct {
	client  *plugin.Client
	toolset *shared.ToolsetClient
	hs      *hostServices
	pid     int
	started time.Time
	desc    described
	// groups are the process groups of its running calls, ended by the
	// host when the plugin is gone (see spawnedGroups).
	groups spawnedGroups
	log    hclog.Logger
}

type launchConfig struct {
	env  []string
	home string
	dir  string // the plugin's working directory
	// workspace is the workspace a confined toolset plugin reads (""
	// before one is known); state is the state directory it never does.
	workspace, state string
	// held is what of the workspace such a plugin that writes it finds
	// read-only (Manager.SetHeld).
	held    []string
	log     hclog.Logger
	spawner *spawner
	timeout time.Duration
	// refuse says why a binary must not be started ("" when it may; see
	// Manager.SetLaunchCheck).
	refuse func(path string) string
	// records are the verified-image records (imagecache.go).
	records verifiedRecords
	// egressAudit records a confined plugin's connections
	// (Manager.SetEgressAudit).
	egressAudit EgressRecord
}

// launch starts a verified plugin, serves it HostServices, configures it
// and asks it to describe itself.
func launch(ctx context.Context, c Candidate, in Input, cfg launchConfig) (*instance, error) {
	if c.Problem != "" {
		return nil, fmt.Errorf("toolset plugin %s is refused: %s", c.Name, c.Problem)
	}
	if cfg.refuse != nil { // the binary and the checksum that vouches for it
		for _, p := range []string{c.Path, c.Path + ".sha256"} {
			if _, err := os.Lstat(p); err != nil && p != c.Path {
				continue // a package's sum is in its lock file, under the state
			}
			if why := cfg.refuse(p); why != "" {
				return nil, fmt.Errorf("toolset plugin %s is refused and was not started: %s", c.Name, why)
			}
		}
	}
	// The bytes that run are the bytes checked: the binary is read once,
	// into a sealed image, and the image is what the child executes.
	img, err := openImage(c, cfg.records)
	if err != nil {
		return nil, startError(c, err)
	}
	defer img.close() // the started plugin holds its own mapping
	if testHookImageVerified != nil {
		testHookImageVerified(c, img)
	}
	conf, err := cfg.confinementFor(c, img)
	if err != nil {
		return nil, err
	}
	cmd := command(img.execPath(), c.Path, cfg.env)
	cmd.Dir = cfg.dir
	cmd.ExtraFiles = []*os.File{img.file()} // becomes imageFD in the child
	cc := &plugin.ClientConfig{
		HandshakeConfig:  shared.Handshake,
		VersionedPlugins: shared.VersionedPlugins(&shared.ToolsetPlugin{}),
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		SkipHostEnv:      true,
		StartTimeout:     cfg.timeout,
		Logger:           cfg.log.Named(c.Name),
		GRPCDialOptions:  shared.GRPCDialOptions(),
	}
	var confined *confinedRunner
	if conf != nil {
		// Started from a confined thread of its own, in its own runtime
		// directory; go-plugin's sockets (the plugin's and the broker's)
		// lie in its TMPDIR.
		cmd.Dir = conf.dir
		cc.Cmd = nil
		cc.UnixSocketConfig = &plugin.UnixSocketConfig{TempDir: conf.tmp}
		cc.RunnerFunc = func(_ hclog.Logger, spec *exec.Cmd, _ string) (runner.Runner, error) {
			plog := cfg.log.Named(c.Name)
			if err := conf.startEgress(c.Name, func(ev egress.Event) {
				if ev.Verdict != "allowed" {
					plog.Warn("plugin egress "+ev.Verdict, "host", ev.Host, "port", ev.Port, "reason", ev.Reason)
				}
				if cfg.egressAudit != nil {
					cfg.egressAudit(c.Name, c.Package, ev)
				}
			}); err != nil {
				return nil, err
			}
			cmd.Env = conf.env(cfg.env, spec.Env)
			cmd.Stdin = spec.Stdin
			r, err := newConfinedRunner(cmd, conf)
			if err != nil {
				if conf.proxy != nil {
					conf.proxy.Close()
				}
			}
			confined = r
			return r, err
		}
	}
	client := plugin.NewClient(cc)
	if conf != nil {
		_, err = client.Start() // the confined runner forks from a thread of its own
	} else {
		cfg.spawner.run(func() { _, err = client.Start() })
	}
	if err == nil {
		err = img.confirm()
	}
	if err != nil {
		client.Kill()
		return nil, startError(c, err)
	}
	inst := &instance{client: client, hs: newHostServices(), started: time.Now(), log: cfg.log.Named(c.Name)}
	if rc := client.ReattachConfig(); rc != nil {
		inst.pid = rc.Pid
	}
	if confined != nil {
		inst.pid = confined.pid
	}
	if err := inst.connect(ctx, c, in); err != nil {
		inst.kill()
		return nil, err
	}
	if conf != nil && conf.toolset {
		if more := DeclaredAccess(inst.desc.GetTools()).Exceeds(conf.access); more != "" {
			cfg.log.Warn("a toolset plugin's tools declare "+more+", which its install record does not grant: demiurge plugins access "+c.Name+" records what they declare (or reinstall it)", "plugin", c.Name)
		}
	}
	return inst, nil
}

func (inst *instance) connect(ctx context.Context, c Candidate, in Input) error {
	rpc, err := inst.client.Client()
	if err != nil {
		return fmt.Errorf("toolset plugin %s: connect: %w", c.Name, err)
	}
	raw, err := rpc.Dispense(shared.PluginName)
	if err != nil {
		return fmt.Errorf("toolset plugin %s: %w", c.Name, err)
	}
	ts, ok := raw.(*shared.ToolsetClient)
	if !ok {
		return fmt.Errorf("toolset plugin %s does not serve the Toolset service", c.Name)
	}
	inst.toolset = ts
	// One HostServices server per plugin, dialled once by the plugin.
	id := ts.Broker.NextId()
	go ts.Broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
		s := grpc.NewServer(append(opts, shared.GRPCServerOptions()...)...)
		toolsetv1.RegisterHostServicesServer(s, inst.hs)
		return s
	})
	if _, err := ts.Configure(ctx, in.configureRequest(id)); err != nil {
		return fmt.Errorf("toolset plugin %s: configure: %w", c.Name, err)
	}
	d, err := ts.Describe(ctx, &toolsetv1.DescribeRequest{})
	if err != nil {
		return fmt.Errorf("toolset plugin %s: describe: %w", c.Name, err)
	}
	if d.GetName() != c.Name {
		return fmt.Errorf("toolset plugin %s describes itself as %q; the binary name and the toolset name must match", c.Name, d.GetName())
	}
	inst.desc = described{DescribeResponse: d, Protocol: inst.client.NegotiatedVersion()}
	return nil
}

func (inst *instance) exited() bool { return inst.client.Exited() }

// kill stops the plugin and sweeps its process group, which holds anything
// the plugin started that did not leave it.
func (inst *instance) kill() {
	inst.client.Kill()
	killGroup(inst.pid)
	inst.endOrphans()
}

// endOrphans ends the recorded groups of calls the plugin never answered:
// with the plugin gone (and its reaper, if that died too) nobody else will.
func (inst *instance) endOrphans() {
	if ended := inst.groups.endAll(); len(ended) > 0 {
		inst.log.Warn("ended process groups the plugin left behind", "pgids", ended)
	}
}

var pluginVersionRe = regexp.MustCompile(`Plugin version: (\d+)`)

// startError turns go-plugin's start failures into messages that say what
// is wrong with the plugin and what to do.
func startError(c Candidate, err error) error {
	msg := err.Error()
	switch {
	case errors.Is(err, plugin.ErrChecksumsDoNotMatch):
		actual, _ := mismatchSum(err)
		return fmt.Errorf("toolset plugin %s is refused and was not started: its sha256 is %s but %s was recorded; rebuild it with make or reinstall it: %w", c.Name, actual, c.Recorded, err)
	case strings.Contains(msg, "ncompatible API version"):
		theirs := "another"
		if m := pluginVersionRe.FindStringSubmatch(msg); m != nil {
			theirs = m[1]
		}
		return fmt.Errorf("toolset plugin %s speaks toolset protocol %s; this host speaks protocol %d: rebuild the plugin against demiurge.dev/shared for protocol %d", c.Name, theirs, shared.ProtocolVersion, shared.ProtocolVersion)
	case strings.Contains(msg, "Unrecognized remote plugin message"):
		return fmt.Errorf("toolset plugin %s wrote to stdout before its handshake, which breaks the plugin protocol (a plugin must log to stderr): %w", c.Name, err)
	}
	return fmt.Errorf("toolset plugin %s did not start: %w", c.Name, err)
}
