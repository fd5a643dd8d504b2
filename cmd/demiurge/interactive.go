package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/urfave/cli/v2"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/toolhost"
)

const replHelp = `commands:
  /tools [quiet|summary|full]   the tools this turn resolves to
  /call NAME [ARGS_JSON]        call a tool through the full call path
  /approvals                    live session approvals
  /tasks [list|show|logs|wait|cancel] [ID]   this session's background tasks
  /session [list|new|resume ID] this session; start a new one or go back to one
  /help                         this text
  /quit                         leave (also Ctrl-D)
`

// interactive is the session with no command: it reads slash commands
// from the operator's terminal (or from a pipe, where approvals deny).
func interactive(c *cli.Context) error {
	if c.NArg() > 0 {
		name := c.Args().First()
		return usagef("unknown command %q%s", name, didYouMeanSuffix(name, commandNames(c.App.Commands)))
	}
	in := bufio.NewReader(plugins.OperatorStdin())
	var approver approval.Provider = approval.DenyAll{}
	if operatorCanAnswer() {
		// The prompt shares the session's reader, so no typed line is lost
		// between them.
		approver = &approval.Terminal{In: in, Out: os.Stderr}
	}
	h, err := openHost(c, approver)
	if err != nil {
		return err
	}
	defer h.Close()
	r := &repl{c: c, h: h, in: in, out: c.App.Writer}
	err = r.loop()
	noteTasksOnExit(r.out, h)
	return err
}

type repl struct {
	c   *cli.Context
	h   *toolhost.Host
	in  *bufio.Reader
	out io.Writer
}

func (r *repl) loop() error {
	fmt.Fprintf(r.out, "demiurge: workspace %s, core %s. Type /help for commands.\n", r.h.Workspace.Root, r.h.Core.File)
	for {
		fmt.Fprint(r.out, "> ")
		line, err := r.in.ReadString('\n')
		if line = strings.TrimSpace(line); line != "" {
			if quit := r.command(line); quit {
				return nil
			}
		}
		if errors.Is(err, io.EOF) {
			fmt.Fprintln(r.out)
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// command runs one line; it reports whether the session should end.
func (r *repl) command(line string) bool {
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch name {
	case "/quit", "/exit":
		return true
	case "/help":
		fmt.Fprint(r.out, replHelp)
	case "/tools":
		r.tools(rest)
	case "/call":
		r.call(rest)
	case "/approvals":
		r.approvals()
	case "/tasks":
		r.tasks(rest)
	case "/session":
		r.session(rest)
	default:
		if strings.HasPrefix(line, "/") {
			fmt.Fprintf(r.out, "unknown command %s; /help lists the commands\n", name)
		} else {
			fmt.Fprintln(r.out, "no model is attached to this session; use /call NAME {json} to call a tool")
		}
	}
	return false
}

func (r *repl) tools(arg string) {
	if arg == "" {
		arg = r.c.String("tool-display")
	}
	mode, err := catalog.ParseDisplayMode(arg)
	if err != nil {
		fmt.Fprintln(r.out, err)
		return
	}
	cat, err := r.h.Catalog(r.c.Context)
	if err != nil {
		fmt.Fprintln(r.out, err)
		return
	}
	for _, w := range r.h.Warnings {
		fmt.Fprintf(r.out, "warning: %s\n", w)
	}
	fmt.Fprint(r.out, cat.Display(mode))
}

func (r *repl) call(arg string) {
	name, args, _ := strings.Cut(arg, " ")
	if name == "" {
		fmt.Fprintln(r.out, "usage: /call NAME [ARGS_JSON]")
		return
	}
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	// Ctrl-C cancels this call, not the session.
	ctx, stop := signal.NotifyContext(r.c.Context, os.Interrupt)
	defer stop()
	turn, err := r.h.NewTurn(ctx)
	if err != nil {
		fmt.Fprintln(r.out, err)
		return
	}
	turn.Deliver = func(_ context.Context, tool, text string) error {
		_, err := fmt.Fprintf(r.out, "[%s] %s\n", tool, printable(text, 4000))
		return err
	}
	turn.OnEvent = func(_ string, ev dispatch.Event) {
		if ev.Progress != "" {
			fmt.Fprintf(r.out, "… %s\n", printable(ev.Progress, 200))
		}
	}
	out := turn.Call(ctx, dispatch.ToolCall{ID: fmt.Sprintf("repl_%d", time.Now().UnixNano()), Name: name, Args: []byte(args)})
	status := ""
	if !out.OK() {
		status = fmt.Sprintf(" [%s]", out.Status)
	}
	fmt.Fprintf(r.out, "── %s%s\n%s\n", out.Views.Card.Title, status, strings.TrimRight(out.Views.Card.Body, "\n"))
}

func (r *repl) approvals() {
	allows := r.h.Approvals.Sessions.List()
	if len(allows) == 0 {
		fmt.Fprintln(r.out, "no session approvals")
		return
	}
	tw := tabwriter.NewWriter(r.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tSCOPE\tEXPIRES\tFINGERPRINT")
	for _, a := range allows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", a.Tool, a.Scope, a.Expires.Local().Format(time.TimeOnly), a.Fingerprint)
	}
	tw.Flush()
}

// printable keeps tool-supplied text from steering the operator's terminal
// (escape sequences, bidi overrides) and bounds its length.
func printable(s string, limit int) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= limit {
			b.WriteString("…")
			break
		}
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			b.WriteRune('?')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
