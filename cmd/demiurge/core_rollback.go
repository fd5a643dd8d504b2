package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// coreRollbackCommand is `demiurge core rollback [REV]`: a new commit whose
// tree is previous's (or REV's, a commit of live's history); history is
// never rewritten, and the new revision applies from the next turn.
func coreRollbackCommand() *cli.Command {
	return &cli.Command{
		Name: "rollback", Usage: "make a new commit with previous's tree (or REV's, a commit of live's history) and move live to it",
		ArgsUsage: "[REV]", Action: coreRollback,
	}
}

func coreRollback(c *cli.Context) error {
	if c.Args().Len() > 1 {
		return usagef("core rollback takes at most one revision (live~N, previous or a commit id of `demiurge core log`)")
	}
	r, err := openCoreRepo(c)
	if err != nil {
		return err
	}
	old, commit, target, err := r.Rollback(c.Args().First())
	if err != nil {
		return err
	}
	fmt.Printf("live: %s -> %s (the tree of %s; previous: %s); it applies from the next turn\n", old[:12], commit[:12], target[:12], old[:12])
	return nil
}
