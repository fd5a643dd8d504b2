package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/hostd"
	"demiurge.dev/host/mcp"
	"demiurge.dev/shared/hostv1"
)

// mcpStates are what `mcp list` (server "") and `mcp test SERVER` show,
// and command renders a command line with the core's flags. A running
// host answers them (MCPStates, minor 9), so the connects are audited by
// the process that holds the store; else this process connects, after
// opening the store, so a refused open (a busy host beside
// DEMIURGE_HOST=off) is said and no mcp.connect event is lost.
func mcpStates(c *cli.Context, server string) (states []mcp.State, command func(string) string, err error) {
	what := "mcp list"
	if server != "" {
		what = "mcp test"
	}
	if cl, ok, err := runningHostClient(c, what); err != nil || ok {
		if err != nil {
			return nil, nil, err
		}
		defer cl.Close()
		return hostMCPStates(c, cl, server)
	}
	h, err := openHost(c, nil)
	if err != nil {
		return nil, nil, err
	}
	defer h.Close()
	if _, err := h.Store(); err != nil {
		return nil, nil, err
	}
	if server == "" {
		if _, err := h.Catalog(c.Context); err != nil {
			return nil, nil, err
		}
		return h.MCPStates(), h.Core.Command, nil
	}
	st, err := h.TestMCP(c.Context, server)
	if err != nil {
		return nil, nil, err
	}
	return []mcp.State{st}, h.Core.Command, nil
}

func hostMCPStates(c *cli.Context, cl *hostd.Client, server string) ([]mcp.State, func(string) string, error) {
	res, err := cl.MCPStates(c.Context, &hostv1.MCPStatesRequest{
		Principal: c.String("principal"), Server: server, Approve: c.StringSlice("approve")})
	if err != nil {
		return nil, nil, errors.New(status.Convert(err).Message())
	}
	var states []mcp.State
	if err := json.Unmarshal(res.States, &states); err != nil {
		return nil, nil, err
	}
	if server != "" && len(states) != 1 {
		return nil, nil, fmt.Errorf("the host answered %d states for mcp test %s", len(states), server)
	}
	command := func(args string) string {
		if res.CliFlags != "" {
			return "demiurge " + res.CliFlags + " " + args
		}
		return "demiurge " + args
	}
	return states, command, nil
}
