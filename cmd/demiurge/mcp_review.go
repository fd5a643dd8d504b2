package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/mcp"
	"demiurge.dev/host/plugins"
)

func mcpReviewCommand() *cli.Command {
	return &cli.Command{
		Name:      "review",
		Usage:     "show the tool definitions a server changed or added since they were pinned, and accept or reject them",
		ArgsUsage: "SERVER",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.BoolFlag{Name: "accept", Usage: "accept every definition shown: the tools return to the catalog"},
			&cli.BoolFlag{Name: "reject", Usage: "reject every definition shown: the tools stay out, and are not asked about again until they change"},
		},
		Action: mcpReview,
	}
}

// reviewOutput is `mcp review --json`.
type reviewOutput struct {
	Server   string           `json:"server"`
	Pending  []mcp.ReviewItem `json:"pending"`
	Decision string           `json:"decision,omitempty"` // accepted, rejected, or none
}

// mcpReview connects the server (as a turn would, through its connect
// gate) so that what is pending is what it offers now, shows each pending
// definition's diff and records the operator's decision for exactly the
// definitions shown.
func mcpReview(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("mcp review takes one server name")
	}
	accept, reject := c.Bool("accept"), c.Bool("reject")
	if accept && reject {
		return usagef("give --accept or --reject, not both")
	}
	server := c.Args().First()
	r, err := openReviewer(c, server)
	if err != nil {
		return err
	}
	defer r.close()
	st, items, err := r.inspect()
	if err != nil {
		return err
	}
	out := reviewOutput{Server: server, Pending: items, Decision: "none"}
	if items == nil {
		out.Pending = []mcp.ReviewItem{}
	}
	w := c.App.Writer
	if !c.Bool("json") {
		if st.Status != mcp.StatusConnected {
			fmt.Fprintf(c.App.ErrWriter, "MCP server %s is %s (%s); showing what was pending at its last connect\n", server, st.Status, st.Diagnostic)
		}
		if len(items) == 0 {
			fmt.Fprintf(w, "no tool definitions of %s await review\n", server)
			return nil
		}
		for _, it := range items {
			what := "changed its definition"
			if it.Kind == mcp.KindNew {
				what = "is new since the server's tools were pinned"
			}
			fmt.Fprintf(w, "tool %s %s (sha256 %s):\n%s\n", mcp.ShownToolName(it.Tool), what, it.Hash[:16], it.Diff)
		}
	}
	if len(items) > 0 && !accept && !reject && !c.Bool("json") && operatorCanAnswer() {
		fmt.Fprintf(c.App.ErrWriter, "accept these %d definitions [a], reject them [r], or leave them pending [enter]? ", len(items))
		line, _ := bufio.NewReader(plugins.OperatorStdin()).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "a", "accept":
			accept = true
		case "r", "reject":
			reject = true
		}
	}
	if len(items) > 0 && (accept || reject) {
		hashes := make(map[string]string, len(items))
		for _, it := range items {
			hashes[it.Tool] = it.Hash
		}
		if err := r.decide(hashes, accept); err != nil {
			return err
		}
		out.Decision = "rejected"
		if accept {
			out.Decision = "accepted"
		}
	}
	if c.Bool("json") {
		return writeJSON(w, out)
	}
	switch {
	case len(items) == 0:
	case out.Decision == "accepted":
		fmt.Fprintf(w, "accepted %d definitions of %s: the tools are offered from the next turn\n", len(items), server)
	case out.Decision == "rejected":
		fmt.Fprintf(w, "rejected %d definitions of %s: the tools stay out until the server changes them again\n", len(items), server)
	default:
		fmt.Fprintf(w, "left pending: decide with %s --accept or --reject\n", r.command)
	}
	return nil
}
