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
	r := &repl{c: c}
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
		r.tty, r.hist = true, hist
		r.out, r.errOut = rl.Stdout(), rl.Stderr()
		r.lines = termsession.EditorLines(rl.Instance)
		approver = &approval.Terminal{Out: r.errOut, Lines: r.answer}
		fe = &chatFrontEnd{Chat: &termsession.Chat{Out: r.out, ErrOut: r.errOut, Display: display, LineBuffered: true,
			Ask: r.lines, Interrupt: func() { r.stopForeground("^C") }, Lead: r.lines.SetLead}, approver: approver}
	} else {
		r.out, r.errOut = c.App.Writer, os.Stderr
		r.lines = termsession.PipeLines(plugins.OperatorStdin(), r.out)
		fe = &chatFrontEnd{Chat: &termsession.Chat{Out: r.out, ErrOut: r.errOut, Display: display}, approver: approver}
	}
	hs, err := openHostSession(c, resume, fe, approver)
	if err != nil {
		return err
	}
	r.remote = hs
	r.leave = make(chan struct{})
	r.watchHost(hs)
	defer func() { r.remote.close() }() // the session in use at the end
	stop := r.catchInterrupts()
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
		<-hs.gone
		if !hs.closing.Load() {
			r.hostLost(hs.lost(hs.err))
		}
	}()
}

// switchSession is /session new (id "") or /session resume ID through the
// host: a new stream on the session, the old one ended once the new one
// is open (a refusal keeps the old).
func (r *repl) switchSession(id string) {
	old := r.remote
	if id != "" && id == old.session {
		fmt.Fprintf(r.out, "session %s is the current one\n", id)
		return
	}
	next, err := openHostSession(r.c, id, old.fe, old.approver)
	if err != nil {
		fmt.Fprintln(r.out, err)
		return
	}
	old.close()
	r.mu.Lock() // the completer reads it from the line editor's goroutine
	r.remote = next
	r.mu.Unlock()
	r.watchHost(next)
	if id == "" {
		fmt.Fprintf(r.out, "session %s; %s ended\n", next.session, old.session)
	} else {
		fmt.Fprintf(r.out, "session %s resumed; %s ended\n", next.session, old.session)
	}
	if next.model != "" && next.model != old.model {
		fmt.Fprintf(r.out, "chatting with %s (the session's model)\n", next.model)
	}
}

// remoteBanner is the session's first lines through the host.
func (r *repl) remoteBanner() {
	hs := r.remote
	ws, core := "?", "?"
	if st, err := hs.cl.Status(r.c.Context, &hostv1.StatusRequest{}); err == nil {
		ws, core = st.Workspace, orDash(st.CoreDir)
	}
	fmt.Fprintf(r.out, "demiurge: workspace %s, core %s, session %s in the host (pid %d). Type /help for commands.\n", ws, core, hs.session, hs.cl.PID)
	if hs.model != "" {
		fmt.Fprintf(r.out, "chatting with %s; type a message, /stop stops a turn.\n", hs.model)
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
		fmt.Fprint(r.out, replHelp)
	case "/tools":
		if rest == "" {
			rest = r.c.String("tool-display")
		}
		text, notes, err := hs.tools(r.c.Context, r.c.String("principal"), rest)
		if err != nil {
			fmt.Fprintln(r.out, err)
			return false
		}
		for _, w := range notes {
			fmt.Fprintf(r.out, "warning: %s\n", w)
		}
		fmt.Fprint(r.out, text)
	case "/call":
		tool, args, _ := strings.Cut(rest, " ")
		if tool == "" {
			fmt.Fprintln(r.out, "usage: /call NAME [ARGS_JSON]")
			return false
		}
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		return r.foreground(func(ctx context.Context) {
			card, err := hs.call(ctx, tool, args, newLiveOutput(r.out, r.errOut, r.tty && !r.c.Bool("quiet")))
			if err != nil {
				r.hostLost(err)
				return
			}
			fmt.Fprint(r.out, card)
		})
	case "/session":
		switch rest {
		case "":
			fmt.Fprintf(r.out, "session %s\n", hs.session)
		case "list":
			r.remoteSessions()
		case "new":
			r.switchSession("")
		default:
			verb, id, _ := strings.Cut(rest, " ")
			if id = strings.TrimSpace(id); verb != "resume" || id == "" || strings.ContainsAny(id, " \t") {
				fmt.Fprintln(r.out, sessionUsage)
				return false
			}
			r.switchSession(id)
		}
	case "/tasks":
		return r.foreground(func(ctx context.Context) { r.tasks(ctx, rest) })
	case "/subagents":
		r.subagents(rest)
	case "/approvals":
		r.remoteApprovals(rest)
	case "/stop":
		fmt.Fprintln(r.out, "nothing is running in the foreground")
	case "/usage":
		if hs.model == "" {
			fmt.Fprintln(r.out, "no model is configured, so no tokens are used")
		} else {
			fmt.Fprintln(r.out, hs.fe.usageReport(hs.session))
		}
	default:
		switch {
		case strings.HasPrefix(line, "/"):
			fmt.Fprintf(r.out, "unknown command %s%s; /help lists the commands\n", name, didYouMeanSuffix(name, slashCommands))
		case hs.model != "":
			return r.foreground(func(ctx context.Context) {
				if err := hs.chat(ctx, line); err != nil {
					r.hostLost(err)
				}
			})
		default:
			fmt.Fprintln(r.out, noModelHelp)
		}
	}
	return false
}

// hostLost says the host went away and ends the session: a front end
// whose host dies says so and never hangs.
func (r *repl) hostLost(err error) {
	fmt.Fprintf(r.errOut, "demiurge: %v; this session ends\n", err)
	r.lostHost.Store(true)
	r.leaveOnce.Do(func() { close(r.leave) })
}

// remoteSessions is /session list through the host.
func (r *repl) remoteSessions() {
	entries, err := conversationsOf(r.c)
	if err != nil {
		fmt.Fprintln(r.out, err)
		return
	}
	cur := r.remote.session
	seen := false
	for _, e := range entries {
		mark := ""
		if e.ID == cur {
			mark, seen = " (current)", true
		}
		fmt.Fprintf(r.out, "%s%s\t%d\t%s\n", e.ID, mark, e.Messages, orDash(e.Title))
	}
	if !seen {
		fmt.Fprintf(r.out, "%s (current)\t0\t-\n", cur)
	}
}

// remoteApprovals is /approvals through the host: this session's live
// allows, listed or revoked by the host.
func (r *repl) remoteApprovals(arg string) {
	n, all, refusal := parseApprovalsArg(arg)
	if refusal != "" {
		fmt.Fprintln(r.out, refusal)
		return
	}
	list, note, err := r.remote.allows(n, all)
	switch {
	case err != nil:
		r.hostLost(err)
	case note != "":
		fmt.Fprintln(r.out, note)
	default:
		r.listApprovals(list)
	}
}
