package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/mcp"
)

func mcpCommand() *cli.Command {
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print JSON"}
	return &cli.Command{
		Name:  "mcp",
		Usage: "the core's MCP servers (agent/mcp/<server>.yaml)",
		Subcommands: []*cli.Command{
			mcpServeCommand(),
			{
				Name:   "list",
				Usage:  "each declared server's state: connected (with its tools), denied, disabled, or failed with the diagnostic and when it is retried",
				Flags:  []cli.Flag{jsonFlag},
				Action: mcpList,
			},
			{
				Name:      "test",
				Usage:     "connect to one server now, through its connect gate, and print what it offers",
				ArgsUsage: "SERVER",
				Flags:     []cli.Flag{jsonFlag},
				Action:    mcpTest,
			},
			mcpReviewCommand(),
			mcpAddCommand(),
		},
	}
}

// mcpList resolves one turn's catalog, which connects every declared
// server its gate allows, and shows each server's state.
func mcpList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("mcp list takes no arguments")
	}
	states, command, err := mcpStates(c, "")
	if err != nil {
		return err
	}
	byName(states, func(s mcp.State) string { return s.Server })
	if c.Bool("json") {
		if states == nil {
			states = []mcp.State{}
		}
		return writeJSON(c.App.Writer, states)
	}
	if len(states) == 0 {
		fmt.Fprintln(c.App.Writer, "no MCP servers are declared (slots.mcp in agent.yaml, one <server>.yaml each)")
		return nil
	}
	tw := newTable(c, "SERVER", "TRANSPORT", "STATE", "TOOLS", "DETAIL")
	tw.Colour(2, stateStyle)
	for _, s := range states {
		tw.Row(s.Server, dash(s.Transport), s.Status, len(s.Tools), dash(detail(s, command)))
	}
	return tw.Flush()
}

// detail is a state's one-line explanation; command renders a command
// line it names with the core's flags (core.Core.Command).
func detail(s mcp.State, command func(string) string) string {
	d := s.Diagnostic
	if s.Status == mcp.StatusConnected {
		d = strings.TrimSpace(s.ServerInfo + " protocol " + s.Protocol)
		if len(s.Refused) > 0 {
			d += fmt.Sprintf("; %d tools left out (%s shows why)", len(s.Refused), command("mcp test "+s.Server))
		}
		// A tool the operator rejected is decided; one quarantined waits
		// for a decision.
		rejected, pending := 0, 0
		for _, q := range s.Quarantined {
			if q.Kind == mcp.KindRejected {
				rejected++
			} else {
				pending++
			}
		}
		if pending > 0 {
			d += fmt.Sprintf("; %d tools quarantined: their definitions changed or are new since they were pinned (%s)", pending, command("mcp review "+s.Server))
		}
		if rejected > 0 {
			d += fmt.Sprintf("; %d tools rejected: the operator rejected their definitions in mcp review, so they stay out until the server changes them", rejected)
		}
	}
	if !s.RetryAt.IsZero() {
		d += "; retried after " + s.RetryAt.Format(time.TimeOnly)
	}
	return d
}

// mcpTest connects one server and prints its tools; it fails unless the
// server connected.
func mcpTest(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("mcp test takes one SERVER (the id of agent/mcp/SERVER.yaml; mcp list shows them)")
	}
	states, command, err := mcpStates(c, c.Args().First())
	if err != nil {
		return err
	}
	st := states[0]
	if c.Bool("json") {
		if err := writeJSON(c.App.Writer, st); err != nil {
			return err
		}
	} else {
		w := c.App.Writer
		fmt.Fprintf(w, "server: %s (%s)\nstate: %s\n", st.Server, dash(st.Transport), st.Status)
		if d := detail(st, command); d != "" {
			fmt.Fprintf(w, "detail: %s\n", d)
		}
		for _, t := range st.Tools {
			fmt.Fprintf(w, "tool: %s\n", t)
		}
		for _, r := range st.Refused {
			fmt.Fprintf(w, "left out: %s\n", r)
		}
		for _, q := range st.Quarantined {
			label := "quarantined"
			if q.Kind == mcp.KindRejected {
				label = "rejected"
			}
			fmt.Fprintf(w, "%s: %s\n", label, q.Diagnostic)
		}
	}
	if st.Status != mcp.StatusConnected {
		return failed()
	}
	return nil
}
