package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"demiurge.dev/cmd/internal/termsession"
	"demiurge.dev/host/toolhost"
)

const sessionUsage = termsession.SessionUsage

// session shows, lists, starts or resumes sessions. Switching ends the
// current session: its MCP servers stop and its session approvals no
// longer apply; its background tasks keep running and are found again by
// resuming it.
func (r *repl) session(arg string) {
	verb, rest, _ := strings.Cut(arg, " ")
	rest = strings.TrimSpace(rest)
	switch {
	case verb == "" && rest == "":
		fmt.Fprintf(r.Out, "session %s\n", r.h.Session().ID())
	case verb == "list" && rest == "":
		r.listSessions()
	case verb == "new" && rest == "":
		old, model := r.h.Session().ID(), r.chatModel()
		s := r.h.NewSession()
		fmt.Fprintf(r.Out, "session %s; %s ended\n", s.ID(), old)
		if r.chat != nil {
			r.chat.switched(model)
		}
	case verb == "resume" && rest != "" && !strings.ContainsAny(rest, " \t"):
		old, model := r.h.Session().ID(), r.chatModel()
		s, err := r.h.ResumeSession(r.c.Context, rest)
		switch {
		case errors.Is(err, toolhost.ErrUnknownSession):
			fmt.Fprintf(r.Out, "no session %s of yours; /session list shows them\n", printable(rest, 80))
		case err != nil:
			fmt.Fprintln(r.Out, err)
		case s.ID() == old:
			fmt.Fprintf(r.Out, "session %s is the current one\n", s.ID())
		default:
			fmt.Fprintf(r.Out, "session %s resumed; %s ended\n", s.ID(), old)
			if r.chat != nil {
				r.chat.switched(model)
			}
		}
	default:
		fmt.Fprintln(r.Out, sessionUsage)
	}
}

// chatModel is the model of the session in use; "" without a chat.
func (r *repl) chatModel() string {
	if r.chat == nil {
		return ""
	}
	return r.chat.current()
}

// listSessions lists this principal's conversations (sessions that hold
// messages; a session that only ran tool calls is not one) and the
// current session, marked, even before its first message.
func (r *repl) listSessions() {
	entries, err := conversations(r.h)
	if err != nil {
		fmt.Fprintln(r.Out, err)
		return
	}
	cur := r.h.Session().ID()
	tw := tabwriter.NewWriter(r.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTARTED\tMESSAGES\tFIRST PROMPT")
	seen := false
	for _, e := range entries {
		mark := ""
		if e.ID == cur {
			mark, seen = " (current)", true
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%d\t%s\n", e.ID, mark, e.Created.Local().Format(time.DateTime), e.Messages, orDash(e.Title))
	}
	if !seen {
		fmt.Fprintf(tw, "%s (current)\t-\t0\t-\n", cur)
	}
	tw.Flush()
}

func orDash(s string) string { return termsession.OrDash(s) }
