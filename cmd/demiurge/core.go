package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/core"
	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/termtext"
	"demiurge.dev/host/toolhost"
)

// coreCommand is `demiurge core`: the operator's side of the core
// repository (docs/core-repository.md). Commits go through the same gates
// evolve_core will use.
func coreCommand() *cli.Command {
	return &cli.Command{
		Name:  "core",
		Usage: "the Agent Core repository: init, status, log, diff, checkout, commit",
		Subcommands: append([]*cli.Command{
			{Name: "init", Usage: "create the core repository under the state directory (default: from the embedded default core)",
				Flags:  []cli.Flag{&cli.StringFlag{Name: "from", Usage: "a tree holding agents/<core_id>/ to make the first commit of"}},
				Action: coreInit},
			{Name: "status", Usage: "which core runs, from which commit; live, previous and the cores of live", Action: coreStatus},
			{Name: "log", Usage: "the commits of live (or REV), newest first", ArgsUsage: "[REV]",
				Flags:  []cli.Flag{&cli.IntFlag{Name: "n", Value: 20, Usage: "at most this many commits"}},
				Action: coreLog},
			{Name: "diff", Usage: "the changes from REV to live (or to REV2)", ArgsUsage: "REV [REV2]", Action: coreDiff},
			{Name: "checkout", Usage: "write live's tree (or --rev's) into a new directory for editing", ArgsUsage: "DIR",
				Flags:  []cli.Flag{&cli.StringFlag{Name: "rev", Value: "live", Usage: "the revision to check out"}},
				Action: coreCheckout},
			{Name: "commit", Usage: "run the host's gates on DIR's tree, then move live to it (previous keeps the old live)", ArgsUsage: "DIR",
				Flags:  []cli.Flag{&cli.StringFlag{Name: "message", Aliases: []string{"m"}, Usage: "the commit message"}},
				Action: coreCommit},
			coreRollbackCommand(),
		}, coreEvolveCommands()...),
	}
}

func openCoreRepo(c *cli.Context) (*corerepo.Repo, error) {
	state, err := stateDir(c)
	if err != nil {
		return nil, err
	}
	return corerepo.Open(state)
}

func coreInit(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usagef("core init takes no arguments (the tree to start from is --from DIR)")
	}
	state, err := stateDir(c)
	if err != nil {
		return err
	}
	tree := corerepo.Seed()
	msg := "the embedded default core"
	if from := c.String("from"); from != "" {
		abs, err := filepath.Abs(from)
		if err != nil {
			return err
		}
		if err := toolhost.Gate(c.Context, abs, gateOptions(c, state, "")); err != nil {
			return err
		}
		tree, msg = os.DirFS(abs), "from "+abs
	}
	r, commit, err := corerepo.Init(state, tree, msg)
	if err != nil {
		return err
	}
	ids, _ := r.Cores(commit)
	fmt.Printf("created the core repository %s\nlive: %s (cores: %s)\n", r.GitDir(), commit, strings.Join(ids, ", "))
	return nil
}

func gateOptions(c *cli.Context, state, commit string) toolhost.GateOptions {
	return toolhost.GateOptions{StateDir: state, BuiltinPluginDir: builtinPluginDir(c), Commit: commit}
}

func coreStatus(c *cli.Context) error {
	if dir := c.String("core"); dir != "" {
		k, err := core.Load(dir)
		if err != nil {
			return err
		}
		fmt.Printf("core:     %s\nversion:  none: a plain directory, unversioned (revision: sha256 of agent.yaml, %s)\n", k.Dir, k.Revision)
		fmt.Println("          without --core the host runs a core of the repository under the state directory (`demiurge core init`)")
		return nil
	}
	r, err := openCoreRepo(c)
	if errors.Is(err, corerepo.ErrNoRepository) {
		fmt.Println("no core repository yet: the first command that runs a core creates one from the embedded default core, or run `demiurge core init`")
		return nil
	}
	if err != nil {
		return err
	}
	live, err := r.Live()
	if err != nil {
		return err
	}
	prev, _, err := r.Ref(corerepo.RefPrevious)
	if err != nil {
		return err
	}
	if prev == "" {
		prev = "(none yet)"
	}
	ids, err := r.Cores(live)
	if err != nil {
		return err
	}
	id := c.String("core-id")
	if id == "" {
		id = core.DefaultID
	}
	if !slices.Contains(ids, id) {
		id += " (not in live: --core-id names one of the cores below)"
	}
	fmt.Printf("repository: %s\ncore:       %s\nlive:       %s\nprevious:   %s\ncores:      %s\n", r.GitDir(), id, live, prev, strings.Join(ids, ", "))
	return nil
}

func coreLog(c *cli.Context) error {
	r, err := openCoreRepo(c)
	if err != nil {
		return err
	}
	if c.Args().Len() > 1 {
		return usagef("core log takes at most one revision")
	}
	entries, err := r.Log(c.Args().First(), c.Int("n"))
	if err != nil {
		return err
	}
	for _, e := range entries {
		fmt.Printf("%s  %s  %s  %s\n", e.Commit[:12], e.When.UTC().Format("2006-01-02 15:04"), termtext.Printable(e.Author, math.MaxInt), termtext.Printable(e.Subject, math.MaxInt))
	}
	return nil
}

func coreDiff(c *cli.Context) error {
	if n := c.Args().Len(); n < 1 || n > 2 {
		return usagef("core diff takes REV, or REV and REV2 (REV: live, previous, live~N or a commit id)")
	}
	r, err := openCoreRepo(c)
	if err != nil {
		return err
	}
	a, err := r.Resolve(c.Args().Get(0))
	if err != nil {
		return err
	}
	b, err := r.Resolve(c.Args().Get(1)) // "" is live
	if err != nil {
		return err
	}
	// The diff is of files a run's author wrote: shown through termtext,
	// so that an ESC in them does not drive the operator's terminal.
	var out strings.Builder
	err = r.Diff(a, b, &out)
	fmt.Print(termtext.Printable(out.String(), math.MaxInt))
	return err
}

func coreCheckout(c *cli.Context) error {
	if c.Args().Len() != 1 {
		return usagef("core checkout takes one DIR: a new or empty directory")
	}
	r, err := openCoreRepo(c)
	if err != nil {
		return err
	}
	commit, err := r.Resolve(c.String("rev"))
	if err != nil {
		return err
	}
	dir := c.Args().First()
	if err := r.Checkout(commit, dir); err != nil {
		return err
	}
	fmt.Printf("checked out %s into %s; edit it, then `demiurge core commit %s -m MESSAGE`\n", commit[:12], dir, dir)
	return nil
}

func coreCommit(c *cli.Context) error {
	if c.Args().Len() != 1 {
		return usagef("core commit takes one DIR (a tree holding agents/<core_id>/) and -m MESSAGE")
	}
	if c.String("message") == "" {
		return usagef("core commit needs a message: -m MESSAGE")
	}
	r, err := openCoreRepo(c)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(c.Args().First())
	if err != nil {
		return err
	}
	var copyDir string
	gate := func(tree string) error {
		copyDir = tree
		return toolhost.Gate(c.Context, tree, gateOptions(c, r.StateDir, filepath.Base(tree)))
	}
	old, commit, err := r.Commit(dir, c.String("message"), gate)
	if err != nil {
		if copyDir != "" { // name the operator's files, not the host's copy
			return errors.New(strings.ReplaceAll(err.Error(), copyDir, dir))
		}
		return err
	}
	fmt.Printf("live: %s -> %s (previous: %s)\n", old[:12], commit[:12], old[:12])
	return nil
}
