package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

func toolsCommand() *cli.Command {
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print JSON"}
	return &cli.Command{
		Name:  "tools",
		Usage: "the resolved tool catalog",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list the tools this core resolves to",
				Flags: []cli.Flag{jsonFlag,
					&cli.StringFlag{Name: "provider", Usage: "print provider definitions: openai, anthropic or gemini"}},
				Action: toolsList,
			},
			{
				Name:         "show",
				Usage:        "one tool: provenance, schema, effective risk, capability and approval",
				ArgsUsage:    "NAME",
				Flags:        []cli.Flag{jsonFlag},
				BashComplete: completeToolNames,
				Action:       toolsShow,
			},
			{
				Name:      "call",
				Usage:     "call one tool through the full call path",
				ArgsUsage: "NAME [ARGS_JSON | @FILE]",
				Flags: []cli.Flag{jsonFlag, sessionFlag(), &cli.BoolFlag{Name: "wait",
					Usage: "with background:true, wait until the task ends (Ctrl-C cancels it) instead of leaving it to the host"}},
				BashComplete: completeToolNames,
				Action:       toolsCall,
			},
		},
	}
}

// withCatalog opens the host and resolves the catalog for one command.
func withCatalog(c *cli.Context, fn func(h *toolhost.Host, cat *catalog.Catalog) error) error {
	h, err := openHost(c, nil)
	if err != nil {
		return err
	}
	defer h.Close()
	cat, err := h.Catalog(c.Context)
	if err != nil {
		return err
	}
	cat.WriteNotes(os.Stderr, h.Warnings())
	return fn(h, cat)
}

func toolsList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("tools list takes no arguments")
	}
	mode, err := catalog.ParseDisplayMode(c.String("tool-display"))
	if err != nil {
		return usagef("--tool-display: %v", err)
	}
	var provider catalog.Provider
	if p := c.String("provider"); p != "" {
		if provider, err = catalog.ParseProvider(p); err != nil {
			return usagef("--provider: %v", err)
		}
	}
	if catalogViaHost(c) {
		return printCatalogViaHost(c, &hostv1.CatalogRequest{DisplayMode: c.String("tool-display"), Json: c.Bool("json"), Provider: c.String("provider")})
	}
	return withCatalog(c, func(_ *toolhost.Host, cat *catalog.Catalog) error {
		return cat.WriteList(c.App.Writer, catalog.ListOptions{Mode: mode, Provider: provider, JSON: c.Bool("json")})
	})
}

func toolsShow(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("tools show takes one tool name")
	}
	name := c.Args().First()
	if catalogViaHost(c) {
		return printCatalogViaHost(c, &hostv1.CatalogRequest{Show: name, Json: c.Bool("json")})
	}
	return withCatalog(c, func(h *toolhost.Host, cat *catalog.Catalog) error {
		e, ok := cat.Lookup(name)
		if !ok {
			for _, u := range cat.Unavailable() {
				if u.Tool == name {
					fmt.Fprintf(os.Stderr, "demiurge: tool %q is unavailable: %s\n", name, policy.UnavailableReason(u, h.GrantsFile()))
					return failed()
				}
			}
			fmt.Fprintf(os.Stderr, "demiurge: no tool %q in this catalog%s; see 'demiurge tools list'\n", name, didYouMeanSuffix(name, toolNames(cat)))
			return failed()
		}
		if c.Bool("json") {
			return writeJSON(c.App.Writer, e.Summary())
		}
		_, err := io.WriteString(c.App.Writer, h.ToolDetail(e))
		return err
	})
}

// toolNames are the catalog's tool names, for "did you mean".
func toolNames(cat *catalog.Catalog) []string {
	var names []string
	for _, e := range cat.Entries() {
		names = append(names, e.Name())
	}
	return names
}

func toolsCall(c *cli.Context) error {
	if c.NArg() < 1 || c.NArg() > 2 {
		return usagef("tools call takes a tool name and its arguments as one JSON object")
	}
	name, args := c.Args().Get(0), c.Args().Get(1)
	if file, ok := strings.CutPrefix(args, "@"); ok {
		b, err := readArgsFile(file)
		if err != nil {
			return usagef("arguments file: %v", err)
		}
		args = string(b)
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	if id := c.String("session"); id != "" {
		if err := toolhost.CheckSessionName(id); err != nil {
			return usagef("--session: %v", err)
		}
	}
	report := detachedChild()
	if report == nil && hostEnabled() {
		return toolsCallViaHost(c, name, args)
	}
	if report == nil && !c.Bool("wait") && wantsBackground(args) {
		return runDetached()
	}
	// The approval question is asked with the progress line held, so the
	// spinner never erases it while the operator reads it.
	var live *liveOutput
	var approver approval.Provider
	if operatorCanAnswer() {
		approver = heldApprover{Provider: &approval.Terminal{In: plugins.OperatorStdin(), Out: os.Stderr},
			live: func() *liveOutput { return live }}
	}
	h, err := openHost(c, approver)
	if err != nil {
		return err
	}
	defer h.Close()
	ctx, stop := interruptContext(c.Context)
	defer stop()
	if id := c.String("session"); id != "" {
		if _, err := h.UseSession(ctx, id); err != nil {
			return sessionRefused(id, err)
		}
	}
	turn, err := h.NewToolTurn(ctx, name)
	if err != nil {
		return err
	}
	if d := turn.Catalog.Disclosure(); d != nil && turn.Catalog.Hidden(name) {
		// Deferral keeps a tool out of a model's context until it searches
		// for it; the operator naming it is that search.
		d.Activate(name)
	}
	printWarnings(h)
	// On a terminal the call's output streams to stderr as it comes, with
	// a progress line; stdout keeps the card for scripts.
	if !c.Bool("quiet") && term.IsTerminal(int(os.Stderr.Fd())) {
		live = newLiveOutput(os.Stderr, os.Stderr, true)
		defer live.close()
		live.attach(turn)
	}
	out := turn.Call(ctx, dispatch.ToolCall{ID: "cli_1", Name: name, Args: []byte(args)})
	if live != nil {
		live.close()
	}
	if caughtSignal.Load() != 0 {
		// The operator stopped it: say so once, not how the context ended.
		fmt.Fprintf(os.Stderr, "demiurge: interrupted; the %s call was cancelled\n", name)
		return failed()
	}
	if err := printOutcome(c, out); err != nil {
		return err
	}
	if report != nil {
		status := 0
		if !out.OK() {
			status = exitFailed
		}
		letGo(report, status)
	}
	waitForBackgroundTasks(h)
	if !out.OK() {
		return failed()
	}
	return nil
}

// sessionFlag is a one-shot command's --session: the calls land in that
// session, so what it keeps (its task list, its session allows while
// they last) carries from one command to the next.
func sessionFlag() cli.Flag {
	return &cli.StringFlag{Name: "session", Usage: "run in this session of yours, or start one under this name (letters, digits, '.', '_', '-'), so the todo list and the like carry across commands"}
}

// sessionRefused says why --session ID cannot be used.
func sessionRefused(id string, err error) error {
	if errors.Is(err, toolhost.ErrUnknownSession) {
		return fmt.Errorf("no session %s of yours; 'demiurge sessions list' shows yours", printable(id, 80))
	}
	return err
}

// printWarnings shows what assembling the catalog left out or read
// conservatively, on stderr so that output stays clean for scripts.
func printWarnings(h *toolhost.Host) {
	for _, w := range h.Warnings() {
		fmt.Fprintf(os.Stderr, "warning: %s\n", w)
	}
}

// readArgsFile reads arguments given as @FILE, with a bound well above
// what dispatch accepts, so an oversized file is refused by the schema
// step with the usual message rather than read whole.
func readArgsFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 4<<20))
}

// printOutcome shows the operator card, or the whole outcome as JSON,
// as the small front end prints it (cmd/internal/frontview).
func printOutcome(c *cli.Context, out dispatch.Outcome) error {
	return frontview.ToolOutcome(c.App.Writer, os.Stderr, outcomeView(out), c.Bool("json"))
}

// outcomeView is what a front end prints of an outcome.
func outcomeView(out dispatch.Outcome) frontview.Outcome {
	card, a := out.Views.Card, out.Approval
	return frontview.Outcome{
		CallID: out.CallID, Tool: out.Tool, Status: string(out.Status), Model: out.Views.Model.String(),
		Card:     frontview.Card{Title: card.Title, Args: card.Args, Body: card.Body, IsError: card.IsError},
		Approval: frontview.Approval{Allowed: a.Allowed, Via: a.Via, Reason: a.Reason, Scope: a.Scope},
		EventSeq: out.EventSeq, DurationMs: out.Duration.Milliseconds(),
	}
}
