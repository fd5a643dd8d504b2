package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/evolve"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/termtext"
	"demiurge.dev/host/toolhost"
)

// coreEvolveCommands are the operator's side of evolution runs: list,
// review, promote, discard (docs/core-repository.md, "Evolution runs").
func coreEvolveCommands() []*cli.Command {
	return []*cli.Command{
		{Name: "runs", Usage: "evolution runs: id, state, reviewed commit, goal", Action: coreRuns},
		{Name: "new-run", Usage: "make an evolution run for the operator to edit by hand (no evolver): a work tree of live; then review and promote it", ArgsUsage: "GOAL", Action: coreNewRun},
		{Name: "review", Usage: "run the host's gates on RUN's work tree, record it at refs/demiurge/runs/RUN, show the changed paths and the authority summary",
			ArgsUsage: "RUN", Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "the review as JSON"}}, Action: coreReview},
		{Name: "promote", Usage: "rerun the gates on RUN's reviewed commit and move live to it (previous keeps the old live)", ArgsUsage: "RUN",
			Flags:  []cli.Flag{&cli.StringFlag{Name: "mcp-review", Usage: "the mcp-review:<sha256> token of the review, verbatim, when the run changes MCP declarations"}},
			Action: corePromote},
		{Name: "discard", Usage: "remove RUN's work tree, metadata and ref", ArgsUsage: "RUN", Action: coreDiscard},
	}
}

func coreRuns(c *cli.Context) error {
	r, err := openCoreRepo(c)
	if err != nil {
		return err
	}
	runs, err := evolve.List(r.StateDir, "")
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		fmt.Println("no evolution runs (the model starts one with evolve_core action=start)")
		return nil
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tSTATE\tREVIEWED\tCREATED\tGOAL")
	for _, run := range runs {
		reviewed := "-"
		if run.Reviewed != "" {
			reviewed = run.Reviewed[:12]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", run.ID, run.State, reviewed, run.Created.Format("2006-01-02 15:04"), termtext.Printable(goalLine(run.Goal, 60), math.MaxInt))
	}
	return tw.Flush()
}

func goalLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func runArg(c *cli.Context, verb string) (string, error) {
	if c.Args().Len() != 1 {
		return "", usagef("core %s takes one RUN id (`demiurge core runs` lists them)", verb)
	}
	return c.Args().First(), nil
}

// hostGate is the host's whole gate (toolhost.Gate) for a commit's copy.
func hostGate(c *cli.Context, state string) corerepo.Gate {
	return func(tree string) error {
		return toolhost.Gate(c.Context, tree, gateOptions(c, state, filepath.Base(tree)))
	}
}

func coreReview(c *cli.Context) error {
	id, err := runArg(c, "review")
	if err != nil {
		return err
	}
	r, err := openCoreRepo(c)
	if err != nil {
		return err
	}
	grants, err := policy.LoadPathGrants(policy.PathGrantsFile(), []policy.AgentDir{{Name: "state directory", Path: r.StateDir}})
	if err != nil {
		return err
	}
	rules, err := operatorRules(c, r.StateDir)
	if err != nil {
		return err
	}
	rev, err := evolve.Review(c.Context, r, id, "", hostGate(c, r.StateDir), &evolve.Operator{Grants: grants, Rules: rules})
	if err != nil {
		return err
	}
	if c.Bool("json") {
		b, err := json.MarshalIndent(rev, "", "  ")
		if err != nil {
			return err
		}
		fmt.Println(string(b))
		return nil
	}
	printReview(rev)
	return nil
}

func printReview(rev *evolve.Result) {
	fmt.Printf("run:       %s\nreviewed:  %s (refs/demiurge/runs/%s, on live %s)\nchanged:\n", rev.Run.ID, rev.Commit, rev.Run.ID, rev.On[:12])
	for _, p := range rev.Changed {
		fmt.Printf("  %s\n", p)
	}
	for id, ch := range rev.Authority {
		b, _ := json.Marshal(ch.Before)
		a, _ := json.Marshal(ch.After)
		fmt.Printf("authority of core %s:\n  before: %s\n  after:  %s\n", id, b, a)
	}
	if len(rev.Widens) == 0 {
		fmt.Println("widens authority: no")
	}
	for _, w := range rev.Widens {
		fmt.Printf("widens authority: %s\n", w)
	}
	for _, m := range rev.MCPChanged {
		fmt.Printf("MCP change: %s\n", m)
	}
	if rev.MCPToken != "" {
		fmt.Printf("%s\n(pass it back verbatim: demiurge core promote %s --mcp-review %s)\n", rev.MCPToken, rev.Run.ID, rev.MCPToken)
	}
}

func corePromote(c *cli.Context) error {
	id, err := runArg(c, "promote")
	if err != nil {
		return err
	}
	r, err := openCoreRepo(c)
	if err != nil {
		return err
	}
	opts := evolve.PromoteOptions{MCPToken: c.String("mcp-review"), Gate: hostGate(c, r.StateDir)}
	opts.Operator, err = operatorRuleNames(c, r.StateDir, id)
	if err != nil {
		return err
	}
	res, err := evolve.Promote(c.Context, r, id, "", opts)
	var need *evolve.NeedsOperatorError
	if errors.As(err, &need) && !opts.Operator && operatorCanAnswer() {
		// The operator at the terminal answers for this run only.
		t := &approval.Terminal{In: plugins.OperatorStdin(), Out: os.Stderr}
		ans, aerr := t.Ask(c.Context, approval.Request{
			Tool: "evolve_core", Risk: catalog.RiskHigh, Policy: catalog.ApprovalPrompt, OperatorOnly: true,
			Preview: fmt.Sprintf("promote %s, which widens authority:\n%s", id, strings.Join(need.Widens, "\n")),
		})
		if aerr != nil {
			return aerr
		}
		if ans != approval.AllowOnce && ans != approval.AllowSession {
			return errors.New("not promoted: the operator declined")
		}
		opts.Operator = true
		res, err = evolve.Promote(c.Context, r, id, "", opts)
	}
	if err != nil {
		return err
	}
	fmt.Printf("live: %s -> %s (previous: %s); it applies from the next turn\n", res.Old[:12], res.Live[:12], res.Old[:12])
	return nil
}

// operatorRuleNames reports whether the operator's own rules (--approve or
// the operator's approvals file, never a core's) allow promoting this run
// by name: allow:evolve_core:promote/RUN.
func operatorRuleNames(c *cli.Context, state, id string) (bool, error) {
	rules, err := operatorRules(c, state)
	if err != nil {
		return false, err
	}
	return slices.Contains(rules, "allow:evolve_core:promote/"+id), nil
}

// operatorRules are the operator's own rules (--approve, the operator's
// approvals file; never a core's), each in its canonical form.
func operatorRules(c *cli.Context, state string) ([]string, error) {
	specs := c.StringSlice("approve")
	ws := c.String("workspace")
	if ws == "" {
		ws, _ = os.Getwd()
	}
	file, err := approval.LoadOperatorFile(approval.OperatorFile(), ws, state)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, r := range file {
		specs = append(specs, r.String())
	}
	var rules []string
	for _, s := range specs {
		rule, err := approval.ParseRule(s)
		if err != nil {
			return nil, usagef("--approve %q: %v", s, err)
		}
		rules = append(rules, rule.String())
	}
	return rules, nil
}

func coreNewRun(c *cli.Context) error {
	if c.Args().Len() != 1 || strings.TrimSpace(c.Args().First()) == "" {
		return usagef("core new-run takes one GOAL (quote it)")
	}
	r, err := openCoreRepo(c)
	if err != nil {
		return err
	}
	// The run is the operator's principal's: the model of their own
	// sessions may review it too.
	run, err := evolve.Start(r, c.Args().First(), toolhost.Principal(c.String("principal")))
	if err != nil {
		return err
	}
	fmt.Printf("run %s: edit %s, then `demiurge core review %s`\n", run.ID, evolve.AgentsDir(r.StateDir, run.ID), run.ID)
	return nil
}

func coreDiscard(c *cli.Context) error {
	id, err := runArg(c, "discard")
	if err != nil {
		return err
	}
	r, err := openCoreRepo(c)
	if err != nil {
		return err
	}
	if err := evolve.Discard(r, id, ""); err != nil {
		return err
	}
	fmt.Printf("discarded %s: its work tree, metadata and ref are gone\n", id)
	return nil
}
