package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"demiurge.dev/cmd/internal/termsession"
	"demiurge.dev/host/approval"
)

const approvalsUsage = termsession.ApprovalsUsage

// approvals lists this session's live allows, numbered, with what each
// covers and when it expires, or revokes one or all of them.
func (r *repl) approvals(arg string) {
	verb, which, _ := strings.Cut(arg, " ")
	which = strings.TrimSpace(which)
	allows := r.sessionAllows()
	switch {
	case verb == "" && which == "":
		r.listApprovals(allows)
	case verb == "revoke" && which == "all":
		n := 0
		for _, a := range allows {
			if r.h.Approvals.Sessions.RevokeAllow(a) {
				n++
			}
		}
		fmt.Fprintf(r.Out, "revoked %d session approval(s)\n", n)
	case verb == "revoke" && which != "":
		n, err := strconv.Atoi(which)
		if err != nil || n < 1 || n > len(allows) {
			fmt.Fprintf(r.Out, "no approval %s; /approvals lists them (1 to %d)\n", printable(which, 20), len(allows))
			return
		}
		a := allows[n-1]
		if !r.h.Approvals.Sessions.RevokeAllow(a) {
			fmt.Fprintf(r.Out, "approval %d had already expired\n", n)
			return
		}
		fmt.Fprintf(r.Out, "revoked %d: %s %s\n", n, a.Tool, a.Covers)
	default:
		fmt.Fprintln(r.Out, approvalsUsage)
	}
}

// sessionAllows are the current session's live allows, in the order
// /approvals numbers them (soonest to expire first).
func (r *repl) sessionAllows() []approval.Allow {
	cur := r.h.Session().ID()
	var out []approval.Allow
	for _, a := range r.h.Approvals.Sessions.List() {
		if a.Session == cur {
			out = append(out, a)
		}
	}
	return out
}

func (r *repl) listApprovals(allows []approval.Allow) {
	writeApprovals(r.Out, allows, func(s string, _ int) string { return s })
}

// writeApprovals lists a session's live allows (termsession's table).
func writeApprovals(w io.Writer, allows []approval.Allow, show func(s string, max int) string) {
	list := make([]termsession.Allow, len(allows))
	for i, a := range allows {
		list[i] = termsession.Allow{Tool: a.Tool, Session: a.Session, Expires: a.Expires, Covers: a.Covers}
	}
	termsession.WriteApprovals(w, list, show)
}

// parseApprovalsArg reads /approvals' argument (termsession's).
func parseApprovalsArg(arg string) (n int, all bool, refusal string) {
	return termsession.ParseApprovalsArg(arg)
}
