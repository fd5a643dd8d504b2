package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/termsession"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/hostd"
	"demiurge.dev/host/plugins"
	"demiurge.dev/shared/hostv1"
)

// interactiveViaHost is the interactive session as a front end of the
// state's host (resuming `resume` when set): the turns, calls and the
// state they read are the host's. On a terminal it has the same line
// editor, history, queueing and /stop as in process; fed from a pipe it
// reads one line at a time, a turn runs to its end before the next line
// is read, and no one can answer: the host asks this front end, which
// denies every approval and says no one is present to a clarify
// question, as the in-process session from a pipe does.
func interactiveViaHost(c *cli.Context, state, resume string) error {
	r := &repl{c: c, Loop: &termsession.Loop{Ctx: c.Context}}
	display, err := catalog.ParseDisplayMode(c.String("tool-display"))
	if err != nil {
		return usagef("--tool-display: %v", err)
	}
	var approver approval.Provider = approval.DenyAll{}
	var fe *chatFrontEnd
	var rl *lineEditor
	if operatorCanAnswer() {
		var hist *history
		rl, hist, err = termsession.OpenLineEditor(plugins.OperatorStdin(), state, termsession.Completer{Tools: r.toolNames})
		if err != nil {
			return err
		}
		defer rl.Close()
		r.TTY, r.Hist = true, hist
		r.Out, r.ErrOut = rl.Stdout(), rl.Stderr()
		r.Lines = termsession.EditorLines(rl.Instance)
		approver = &approval.Terminal{Out: r.ErrOut, Lines: r.Answer}
		fe = &chatFrontEnd{Chat: &termsession.Chat{Out: r.Out, ErrOut: r.ErrOut, Display: display, LineBuffered: true,
			Ask: r.Lines, Interrupt: func() { r.StopForeground("^C") }, Lead: r.Lines.SetLead}, approver: approver}
	} else {
		r.Out, r.ErrOut = c.App.Writer, os.Stderr
		r.Lines = termsession.PipeLines(plugins.OperatorStdin(), r.Out)
		fe = &chatFrontEnd{Chat: &termsession.Chat{Out: r.Out, ErrOut: r.ErrOut, Display: display}, approver: approver}
	}
	hs, err := openHostSession(c, resume, fe, approver)
	if err != nil {
		return err
	}
	r.remote, r.fe = hs, fe
	r.Init()
	r.watchHost(hs)
	defer func() { r.remote.Close() }() // the session in use at the end
	stop := r.CatchInterrupts()
	defer stop()
	err = r.loop()
	if !r.lostHost.Load() {
		r.noteRemoteTasksOnExit()
	}
	if r.lostHost.Load() {
		// A pipe's reader stays blocked on its input until a line
		// comes: give the terminal its mode back and end now, non-zero
		// (never hang on a dead host).
		if rl != nil {
			rl.Terminal.ExitRawMode()
		}
		os.Exit(exitFailed)
	}
	return err
}

// watchHost ends the session when hs's host dies, also while it idles.
func (r *repl) watchHost(hs *hostSession) {
	go func() {
		<-hs.Gone()
		if !hs.Closing() {
			r.hostLost(hs.Lost(hs.Err()))
		}
	}()
}

// switchSession is /session new (id "") or /session resume ID through the
// host: a new stream on the session, the old one ended once the new one
// is open (a refusal keeps the old).
func (r *repl) switchSession(id string) {
	old := r.remote
	if id != "" && id == old.Session {
		fmt.Fprintf(r.Out, "session %s is the current one\n", id)
		return
	}
	next, err := old.Reopen(func() (*hostd.Client, error) { return connectHost(r.c) }, id)
	err = openError(err)
	if err != nil {
		fmt.Fprintln(r.Out, err)
		return
	}
	old.Close()
	r.mu.Lock() // the completer reads it from the line editor's goroutine
	r.remote = next
	r.mu.Unlock()
	r.watchHost(next)
	if id == "" {
		fmt.Fprintf(r.Out, "session %s; %s ended\n", next.Session, old.Session)
	} else {
		fmt.Fprintf(r.Out, "session %s resumed; %s ended\n", next.Session, old.Session)
	}
	if next.Model != "" && next.Model != old.Model {
		fmt.Fprintf(r.Out, "chatting with %s (the session's model)\n", next.Model)
	}
}

// remoteBanner is the session's first lines through the host.
func (r *repl) remoteBanner() {
	hs := r.remote
	ws, core := "?", "?"
	if st, err := hs.Client.Status(r.c.Context, &hostv1.StatusRequest{}); err == nil {
		ws, core = st.Workspace, orDash(st.CoreDir)
	}
	fmt.Fprintf(r.Out, "demiurge: workspace %s, core %s, session %s in the host (pid %d). Type /help for commands.\n", ws, core, hs.Session, hs.Client.PID)
	if hs.Model != "" {
		fmt.Fprintf(r.Out, "chatting with %s; type a message, /stop stops a turn.\n", hs.Model)
	}
}

// remoteCommand runs one line through the host; it reports whether the
// session should end.
func (r *repl) remoteCommand(line string) bool {
	hs := r.remote
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch name {
	case "/quit", "/exit":
		return true
	case "/help":
		fmt.Fprint(r.Out, replHelp)
	case "/tools":
		if rest == "" {
			rest = r.c.String("tool-display")
		}
		text, notes, err := hs.Tools(r.c.Context, r.c.String("principal"), rest)
		if err != nil {
			fmt.Fprintln(r.Out, err)
			return false
		}
		for _, w := range notes {
			fmt.Fprintf(r.Out, "warning: %s\n", w)
		}
		fmt.Fprint(r.Out, text)
	case "/call":
		tool, args, _ := strings.Cut(rest, " ")
		if tool == "" {
			fmt.Fprintln(r.Out, "usage: /call NAME [ARGS_JSON]")
			return false
		}
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		return r.Foreground(func(ctx context.Context) {
			card, err := hs.Call(ctx, tool, args, newLiveOutput(r.Out, r.ErrOut, r.TTY && !r.c.Bool("quiet")).Live)
			if err != nil {
				r.hostLost(err)
				return
			}
			fmt.Fprint(r.Out, card)
		})
	case "/session":
		switch rest {
		case "":
			fmt.Fprintf(r.Out, "session %s\n", hs.Session)
		case "list":
			r.remoteSessions()
		case "new":
			r.switchSession("")
		default:
			verb, id, _ := strings.Cut(rest, " ")
			if id = strings.TrimSpace(id); verb != "resume" || id == "" || strings.ContainsAny(id, " \t") {
				fmt.Fprintln(r.Out, sessionUsage)
				return false
			}
			r.switchSession(id)
		}
	case "/tasks":
		return r.Foreground(func(ctx context.Context) { r.tasks(ctx, rest) })
	case "/subagents":
		r.subagents(rest)
	case "/approvals":
		r.remoteApprovals(rest)
	case "/stop":
		fmt.Fprintln(r.Out, "nothing is running in the foreground")
	case "/usage":
		if hs.Model == "" {
			fmt.Fprintln(r.Out, "no model is configured, so no tokens are used")
		} else {
			fmt.Fprintln(r.Out, r.fe.usageReport(hs.Session))
		}
	default:
		switch {
		case strings.HasPrefix(line, "/"):
			fmt.Fprintf(r.Out, "unknown command %s%s; /help lists the commands\n", name, didYouMeanSuffix(name, slashCommands))
		case hs.Model != "":
			return r.Foreground(func(ctx context.Context) {
				if err := hs.Chat(ctx, line, r.ErrOut); err != nil {
					r.hostLost(err)
				}
			})
		default:
			fmt.Fprintln(r.Out, noModelHelp)
		}
	}
	return false
}

// hostLost says the host went away and ends the session: a front end
// whose host dies says so and never hangs.
func (r *repl) hostLost(err error) {
	fmt.Fprintf(r.ErrOut, "demiurge: %v; this session ends\n", err)
	r.lostHost.Store(true)
	r.Leave()
}

// remoteSessions is /session list through the host.
func (r *repl) remoteSessions() {
	entries, err := conversationsOf(r.c)
	if err != nil {
		fmt.Fprintln(r.Out, err)
		return
	}
	cur := r.remote.Session
	seen := false
	for _, e := range entries {
		mark := ""
		if e.ID == cur {
			mark, seen = " (current)", true
		}
		fmt.Fprintf(r.Out, "%s%s\t%d\t%s\n", e.ID, mark, e.Messages, orDash(e.Title))
	}
	if !seen {
		fmt.Fprintf(r.Out, "%s (current)\t0\t-\n", cur)
	}
}

// remoteApprovals is /approvals through the host: this session's live
// allows, listed or revoked by the host.
func (r *repl) remoteApprovals(arg string) {
	n, all, refusal := parseApprovalsArg(arg)
	if refusal != "" {
		fmt.Fprintln(r.Out, refusal)
		return
	}
	list, note, err := hostAllows(r.remote, n, all)
	switch {
	case err != nil:
		r.hostLost(err)
	case note != "":
		fmt.Fprintln(r.Out, note)
	default:
		r.listApprovals(list)
	}
}
