package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/hostd"
	"demiurge.dev/shared/hostv1"
)

// catalogViaHost reports whether `tools list|show` should ask the running
// host: a host runs for the state and front ends go through it. With no
// host running the command resolves in process (its fast path) rather
// than start one.
func catalogViaHost(c *cli.Context) bool {
	if !hostEnabled() {
		return false
	}
	state, err := stateDir(c)
	if err != nil {
		return false
	}
	_, running := hostd.Running(state)
	return running
}

// printCatalogViaHost is `tools list|show` answered by the running host
// (its Catalog call, minor 7 for --json, --provider and show's
// messages): the catalog a fresh session of the operator resolves to.
func printCatalogViaHost(c *cli.Context, req *hostv1.CatalogRequest) error {
	cl, err := connectHost(c)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.Needs(7, "tools list|show"); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(c.Context, 60*time.Second)
	defer cancel()
	res, err := cl.Catalog(ctx, req)
	if err != nil {
		return hostGone(cl, "tools "+c.Command.Name, err)
	}
	for _, w := range res.Notes {
		fmt.Fprintf(os.Stderr, "warning: %s\n", printable(w, 2000))
	}
	if res.Error != "" {
		fmt.Fprintf(os.Stderr, "demiurge: %s\n", printable(res.Error, 2000))
		return failed()
	}
	_, err = c.App.Writer.Write(res.Text)
	return err
}
