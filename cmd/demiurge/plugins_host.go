package main

import (
	"encoding/json"
	"errors"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/hostd"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/hostv1"
)

// pluginStatuses are what `plugins list` shows: a running host's plugins
// with their live state (Plugins, minor 9), else those this process
// discovers (none started).
func pluginStatuses(c *cli.Context) ([]plugins.Status, sandboxing.Status, error) {
	var sandbox sandboxing.Status
	if cl, ok, err := runningHostClient(c, "plugins list"); err != nil || ok {
		if err != nil {
			return nil, sandbox, err
		}
		defer cl.Close()
		res, err := cl.Plugins(c.Context, &hostv1.PluginsRequest{})
		if err != nil {
			return nil, sandbox, errors.New(status.Convert(err).Message())
		}
		var sts []plugins.Status
		if err := json.Unmarshal(res.Statuses, &sts); err != nil {
			return nil, sandbox, err
		}
		return sts, sandbox, json.Unmarshal(res.Sandbox, &sandbox)
	}
	h, err := openHost(c, nil)
	if err != nil {
		return nil, sandbox, err
	}
	defer h.Close()
	return h.Plugins.Statuses(), sandboxing.Report(h.Sandbox.Helper, h.Sandbox.Mode), nil
}

// verifyPlugins is `plugins verify NAME...` (every plugin when none is
// named): by a running host, over the plugins it runs, else here.
func verifyPlugins(c *cli.Context, names []string) ([]plugins.Verified, error) {
	if cl, ok, err := runningHostClient(c, "plugins verify"); err != nil || ok {
		if err != nil {
			return nil, err
		}
		defer cl.Close()
		res, err := cl.Plugins(c.Context, &hostv1.PluginsRequest{Verify: true, Names: names})
		if err != nil {
			return nil, errors.New(status.Convert(err).Message())
		}
		var out []plugins.Verified
		return out, json.Unmarshal(res.Verified, &out)
	}
	h, err := openHost(c, nil)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	return h.Plugins.VerifyAll(names), nil
}

// runningHostClient connects the state's running host when the host path
// is on and one runs (ok), checked for minor 9; none is started.
func runningHostClient(c *cli.Context, what string) (*hostd.Client, bool, error) {
	if !hostEnabled() {
		return nil, false, nil
	}
	state, err := stateDir(c)
	if err != nil {
		return nil, false, err
	}
	if _, running := hostd.Running(state); !running {
		return nil, false, nil
	}
	cl, err := connectHost(c)
	if err != nil {
		return nil, false, err
	}
	if err := cl.Needs(9, what); err != nil {
		cl.Close()
		return nil, false, err
	}
	return cl, true, nil
}
