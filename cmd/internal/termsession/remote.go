package termsession

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/shared/hostv1"
)

// Remote is the interactive session as a front end of the state's host:
// the full CLI's (DEMIURGE_HOST on) and the small front end's are this
// one. The turns, calls and the state they read are the host's; the
// commands that read the host's records (/tasks, /subagents, /session
// list) ask it on the session's connection.
type Remote struct {
	*Loop
	Chat *Chat
	// ToolDisplay and Principal are --tool-display and --principal;
	// Quiet (-q) draws no live /call output.
	ToolDisplay, Principal string
	Quiet                  bool
	// Dial connects again to the same host (/session new|resume).
	Dial func() (*hostclient.Client, error)
	// OpenError is how a refused open is said (/session new|resume).
	OpenError func(error) error

	mu sync.Mutex
	hs *HostSession
	// lostHost: the host went away; the session ends non-zero.
	lostHost atomic.Bool
	lostMu   sync.Mutex
}

// Start takes hs as the session in use and watches its host.
func (r *Remote) Start(hs *HostSession) {
	r.Init()
	r.mu.Lock()
	r.hs = hs
	r.mu.Unlock()
	r.Command = r.command
	r.watchHost(hs)
}

// Current is the session in use.
func (r *Remote) Current() *HostSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hs
}

// LostHost reports whether the host went away (the session ends non-zero).
func (r *Remote) LostHost() bool { return r.lostHost.Load() }

// ToolNames are the names /call completes (the line editor asks).
func (r *Remote) ToolNames() []string {
	hs := r.Current()
	if hs == nil {
		return nil
	}
	return hs.ToolNames(r.Ctx, r.Principal)
}

// watchHost ends the session when hs's host dies, also while it idles.
func (r *Remote) watchHost(hs *HostSession) {
	go func() {
		<-hs.Gone()
		if !hs.Closing() {
			r.hostLost(hs.Lost(hs.Err()))
		}
	}()
}

// Banner is the session's first lines through the host.
func (r *Remote) Banner() {
	hs := r.Current()
	ws, core := "?", "?"
	if st, err := hs.Client.Status(r.Ctx, &hostv1.StatusRequest{}); err == nil {
		ws, core = st.Workspace, OrDash(st.CoreDir)
	}
	fmt.Fprintf(r.Out, "demiurge: workspace %s, core %s, session %s in the host (pid %d). Type /help for commands.\n", ws, core, hs.Session, hs.Client.PID)
	if hs.Model != "" {
		fmt.Fprintf(r.Out, "chatting with %s; type a message, /stop stops a turn.\n", hs.Model)
	}
}

// switchSession is /session new (id "") or /session resume ID through the
// host: a new stream on the session, the old one ended once the new one
// is open (a refusal keeps the old).
func (r *Remote) switchSession(id string) {
	old := r.Current()
	if id != "" && id == old.Session {
		fmt.Fprintf(r.Out, "session %s is the current one\n", id)
		return
	}
	next, err := old.Reopen(r.Dial, id)
	if err != nil {
		if r.OpenError != nil {
			err = r.OpenError(err)
		}
		fmt.Fprintln(r.Out, err)
		return
	}
	old.Close()
	r.mu.Lock() // the completer reads it from the line editor's goroutine
	r.hs = next
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

// command runs one line through the host; it reports whether the
// session should end.
func (r *Remote) command(line string) bool {
	hs := r.Current()
	name, rest, _ := strings.Cut(line, " ")
	rest = strings.TrimSpace(rest)
	switch name {
	case "/quit", "/exit":
		return true
	case "/help":
		fmt.Fprint(r.Out, Help)
	case "/tools":
		if rest == "" {
			rest = r.ToolDisplay
		}
		text, notes, err := hs.Tools(r.Ctx, r.Principal, rest)
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
			card, err := hs.Call(ctx, tool, args, frontview.NewLive(r.Out, r.ErrOut, r.TTY && !r.Quiet))
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
			r.sessions(hs)
		case "new":
			r.switchSession("")
		default:
			verb, id, _ := strings.Cut(rest, " ")
			if id = strings.TrimSpace(id); verb != "resume" || id == "" || strings.ContainsAny(id, " \t") {
				fmt.Fprintln(r.Out, SessionUsage)
				return false
			}
			r.switchSession(id)
		}
	case "/tasks":
		return r.Foreground(func(ctx context.Context) { r.tasks(ctx, hs, rest) })
	case "/subagents":
		r.subagents(hs, rest)
	case "/approvals":
		r.approvals(hs, rest)
	case "/stop":
		fmt.Fprintln(r.Out, "nothing is running in the foreground")
	case "/usage":
		if hs.Model == "" {
			fmt.Fprintln(r.Out, "no model is configured, so no tokens are used")
		} else {
			fmt.Fprintln(r.Out, r.Chat.UsageReport(hs.Session))
		}
	default:
		switch {
		case strings.HasPrefix(line, "/"):
			fmt.Fprintf(r.Out, "unknown command %s%s; /help lists the commands\n", name, DidYouMean(name, SlashCommands))
		case hs.Model != "":
			return r.Foreground(func(ctx context.Context) {
				if err := hs.Chat(ctx, line, r.ErrOut); err != nil {
					r.hostLost(err)
				}
			})
		default:
			fmt.Fprintln(r.Out, NoModelHelp)
		}
	}
	return false
}

// hostLost says the host went away and ends the session: a front end
// whose host dies says so and never hangs.
//
// Said once: the watch on the stream and a foreground turn whose reply
// failed both find the loss, in either order, and neither returns before
// it is said and the session left.
func (r *Remote) hostLost(err error) {
	r.lostMu.Lock()
	defer r.lostMu.Unlock()
	if !r.lostHost.Load() {
		fmt.Fprintf(r.ErrOut, "demiurge: %v; this session ends\n", err)
		r.lostHost.Store(true)
	}
	r.Leave()
}

// sessions is /session list through the host.
func (r *Remote) sessions(hs *HostSession) {
	entries, err := conversations(r.Ctx, hs.Client)
	if err != nil {
		fmt.Fprintln(r.Out, err)
		return
	}
	cur := hs.Session
	seen := false
	for _, e := range entries {
		mark := ""
		if e.ID == cur {
			mark, seen = " (current)", true
		}
		fmt.Fprintf(r.Out, "%s%s\t%d\t%s\n", e.ID, mark, e.Messages, OrDash(e.Title))
	}
	if !seen {
		fmt.Fprintf(r.Out, "%s (current)\t0\t-\n", cur)
	}
}

// approvals is /approvals through the host: this session's live
// allows, listed or revoked by the host.
func (r *Remote) approvals(hs *HostSession, arg string) {
	n, all, refusal := ParseApprovalsArg(arg)
	if refusal != "" {
		fmt.Fprintln(r.Out, refusal)
		return
	}
	list, note, err := hs.Allows(n, all)
	switch {
	case err != nil:
		r.hostLost(err)
	case note != "":
		fmt.Fprintln(r.Out, note)
	default:
		if err := writeAllows(r.Out, list); err != nil {
			r.hostLost(fmt.Errorf("the host's approvals could not be read: %w", err))
		}
	}
}
