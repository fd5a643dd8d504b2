package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/termsession"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/termtext"
	"demiurge.dev/host/toolhost"
)

// replHelp is /help (termsession.Help, the session through the host's too).
const replHelp = termsession.Help

// prompt is the session's prompt; busyPrompt shows while a turn or call
// runs in the foreground (the input stays live for /stop).
const (
	prompt     = termsession.Prompt
	busyPrompt = termsession.BusyPrompt
)

// The session's terminal side is termsession's, shared with the small
// front end's session through the host.
type (
	lineBroker = termsession.LineBroker
	history    = termsession.History
	lineEditor = termsession.LineEditor
)

// interactive is the session with no command: it reads slash commands
// (and, with a model, chat) from the operator's terminal with line
// editing, or from a pipe, where approvals deny.
func interactive(c *cli.Context) error {
	if c.NArg() > 0 {
		name := c.Args().First()
		return usagef("unknown command %q%s", name, didYouMeanSuffix(name, commandNames(c.App.Commands)))
	}
	state, err := stateDir(c)
	if err != nil {
		return err
	}
	if hostEnabled() {
		return interactiveViaHost(c, state, "")
	}
	r := &repl{c: c, Loop: &termsession.Loop{Ctx: c.Context, Out: c.App.Writer, ErrOut: os.Stderr}}
	var approver approval.Provider = approval.DenyAll{}
	if operatorCanAnswer() {
		rl, hist, err := termsession.OpenLineEditor(plugins.OperatorStdin(), state, termsession.Completer{Tools: r.toolNames})
		if err != nil {
			return err
		}
		defer rl.Close()
		r.TTY, r.Hist = true, hist
		r.Out, r.ErrOut = rl.Stdout(), rl.Stderr()
		r.Lines = termsession.EditorLines(rl)
		// A /call's spinner is held while its question is asked.
		approver = heldApprover{Provider: &approval.Terminal{Out: r.ErrOut, Lines: r.Answer}, live: r.liveCall}
	} else {
		r.Lines = termsession.PipeLines(plugins.OperatorStdin(), r.Out)
	}
	h, err := openHost(c, approver)
	if err != nil {
		return err
	}
	defer h.Close()
	r.h = h
	if r.chat, err = openChat(c, r, approver); err != nil {
		return err
	}
	if r.chat != nil {
		defer r.chat.close()
	}
	stop := r.CatchInterrupts()
	defer stop()
	err = r.loop()
	noteTasksOnExit(r.Out, h)
	return err
}

type repl struct {
	// Loop is the session's input loop (termsession, shared with the
	// small front end's session through the host).
	*termsession.Loop
	c *cli.Context
	h *toolhost.Host
	// chat is the model's side; nil when no model is configured.
	chat *chat

	// mu guards live.
	mu sync.Mutex
	// live is the running /call's output and spinner, nil when none.
	live *liveOutput
}

func (r *repl) liveCall() *liveOutput {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live
}

func (r *repl) loop() error {
	r.Command = r.command
	fmt.Fprintf(r.Out, "demiurge: workspace %s, core %s. Type /help for commands.\n", r.h.Workspace.Root, r.h.Core.File)
	if r.chat != nil {
		fmt.Fprintf(r.Out, "chatting with %s; type a message, /stop stops a turn.\n", r.chat.model.Name())
	}
	return r.Run()
}

// command runs one line; it reports whether the session should end.
func (r *repl) command(line string) bool {
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch name {
	case "/quit", "/exit":
		return true
	case "/help":
		fmt.Fprint(r.Out, replHelp)
	case "/tools":
		r.tools(rest)
	case "/call":
		return r.Foreground(func(ctx context.Context) { r.call(ctx, rest) })
	case "/approvals":
		r.approvals(rest)
	case "/tasks":
		return r.Foreground(func(ctx context.Context) { r.tasks(ctx, rest) })
	case "/subagents":
		r.subagents(rest)
	case "/session":
		r.session(rest)
	case "/stop":
		fmt.Fprintln(r.Out, "nothing is running in the foreground")
	case "/usage":
		if r.chat == nil {
			fmt.Fprintln(r.Out, "no model is configured, so no tokens are used")
		} else {
			fmt.Fprintln(r.Out, r.chat.fe.usageReport(r.h.Session().ID()))
		}
	default:
		switch {
		case strings.HasPrefix(line, "/"):
			fmt.Fprintf(r.Out, "unknown command %s%s; /help lists the commands\n", name, didYouMeanSuffix(name, slashCommands))
		case r.chat != nil:
			return r.Foreground(func(ctx context.Context) { r.chat.run(ctx, line) })
		default:
			fmt.Fprintln(r.Out, noModelHelp)
		}
	}
	return false
}

// slashCommands are the session's commands, for "did you mean".
var slashCommands = termsession.SlashCommands

// noModelHelp answers chat typed into a session without a model.
const noModelHelp = termsession.NoModelHelp

// toolNames are the names /call completes.
func (r *repl) toolNames() []string {
	if r.h == nil {
		return nil
	}
	cat, err := r.h.Catalog(r.c.Context)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range cat.Entries() {
		names = append(names, e.Spec.Name)
	}
	return names
}

func (r *repl) tools(arg string) {
	if arg == "" {
		arg = r.c.String("tool-display")
	}
	mode, err := catalog.ParseDisplayMode(arg)
	if err != nil {
		fmt.Fprintln(r.Out, err)
		return
	}
	cat, err := r.h.Catalog(r.c.Context)
	if err != nil {
		fmt.Fprintln(r.Out, err)
		return
	}
	for _, w := range r.h.Warnings() {
		fmt.Fprintf(r.Out, "warning: %s\n", w)
	}
	fmt.Fprint(r.Out, cat.Display(mode))
}

func (r *repl) call(ctx context.Context, arg string) {
	name, args, _ := strings.Cut(arg, " ")
	if name == "" {
		fmt.Fprintln(r.Out, "usage: /call NAME [ARGS_JSON]")
		return
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	turn, err := r.h.NewToolTurn(ctx, name)
	if err != nil {
		fmt.Fprintln(r.Out, err)
		return
	}
	turn.Deliver = func(_ context.Context, tool, text string) error {
		_, err := fmt.Fprintf(r.Out, "[%s] %s\n", tool, printable(text, 4000))
		return err
	}
	live := newLiveOutput(r.Out, r.ErrOut, r.TTY && !r.c.Bool("quiet"))
	defer live.close()
	live.attach(turn)
	r.mu.Lock()
	r.live = live
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.live = nil
		r.mu.Unlock()
	}()
	out := turn.Call(ctx, dispatch.ToolCall{ID: fmt.Sprintf("repl_%d", time.Now().UnixNano()), Name: name, Args: []byte(args)})
	live.close()
	if out.Status == dispatch.StatusUnknownTool {
		// Why the tool is missing (an MCP server not connected, a toolset
		// left out) is what the catalog found; the call resolved only the
		// servers that could offer the name, so these are about it.
		for _, w := range r.h.Warnings() {
			fmt.Fprintf(r.Out, "warning: %s\n", printable(w, 2000))
		}
	}
	status := ""
	switch {
	case ctx.Err() != nil:
		status = " [stopped]"
	case !out.OK():
		status = fmt.Sprintf(" [%s]", out.Status)
	}
	// What streamed while the call ran is not printed again in its card.
	body := live.notShownAgain(strings.TrimRight(out.Views.Card.Body, "\n"))
	fmt.Fprintf(r.Out, "── %s%s\n%s\n", printable(out.Views.Card.Title, 2000), status, printable(body, 1<<20))
}

// printable is termtext.Printable: tool-supplied text never steers the
// operator's terminal, in any front end.
func printable(s string, limit int) string { return termtext.Printable(s, limit) }
