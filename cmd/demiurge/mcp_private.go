package main

import (
	"github.com/urfave/cli/v2"

	"demiurge.dev/host/mcp"
)

// privateMCPFlags parses --allow-private-mcp: the operator's allowance of
// one private address:port for one server, which no core can give.
func privateMCPFlags(c *cli.Context) ([]mcp.PrivateAllowance, error) {
	var out []mcp.PrivateAllowance
	for _, spec := range c.StringSlice("allow-private-mcp") {
		a, err := mcp.ParsePrivateAllowance(spec, mcp.FlagSource)
		if err != nil {
			return nil, usagef("--allow-private-mcp %v", err)
		}
		out = append(out, a)
	}
	return out, nil
}
