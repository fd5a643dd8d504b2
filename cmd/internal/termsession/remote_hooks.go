package termsession

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/cmd/internal/taskcmd"
	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// taskSource is this session's tasks, through the host's Tasks call on
// the session's connection (the host fills in the front end's principal).
func (r *Remote) taskSource(hs *HostSession) func() (taskcmd.Source, runtime.TaskScope, func(), error) {
	return func() (taskcmd.Source, runtime.TaskScope, func(), error) {
		return hs.Client.RemoteTasks(r.Principal), runtime.TaskScope{Session: hs.Session}, func() {}, nil
	}
}

// tasks is /tasks through the host.
func (r *Remote) tasks(ctx context.Context, hs *HostSession, arg string) {
	taskcmd.Repl(ctx, r.Out, arg, r.taskSource(hs))
}

// subagents is /subagents through the host.
func (r *Remote) subagents(hs *HostSession, arg string) {
	taskcmd.ReplSubagents(r.Out, arg, r.taskSource(hs))
}

// noteTasksOnExit says, as a session in the host ends, that its queued
// or running background tasks go on in the host.
func (r *Remote) noteTasksOnExit(hs *HostSession) {
	m, scope, _, _ := r.taskSource(hs)()
	taskcmd.NoteGoingOn(r.Out, m, scope)
}

// conversations are the operator's conversations, as the host lists
// them (/session list).
func conversations(ctx context.Context, cl *hostclient.Client) ([]frontview.SessionEntry, error) {
	if err := cl.Needs(2, "sessions"); err != nil {
		return nil, err
	}
	res, err := cl.Conversations(ctx, &hostv1.ConversationsRequest{})
	if err != nil {
		if status.Code(err) == codes.NotFound {
			return nil, err
		}
		return nil, fmt.Errorf("the host (pid %d): %s", cl.PID, status.Convert(err).Message())
	}
	var list []hostclient.Conversation
	if err := json.Unmarshal(res.Json, &list); err != nil {
		return nil, fmt.Errorf("the host's sessions could not be read: %w", err)
	}
	entries := []frontview.SessionEntry{}
	for _, cv := range list {
		entries = append(entries, frontview.SessionEntry{ID: cv.ID, Created: cv.Created, Messages: cv.Messages, Title: frontview.SessionTitle(cv.FirstText)})
	}
	return entries, nil
}

// Allow is one live session approval as /approvals lists it
// (approval.Allow's fields, as the host sends them).
type Allow struct {
	Tool    string
	Session string
	Expires time.Time
	Covers  string
}

// WriteApprovals lists a session's live allows, each field through show
// (the ACP client's text is made printable; the terminal's is as is).
func WriteApprovals(w io.Writer, allows []Allow, show func(s string, max int) string) {
	if len(allows) == 0 {
		fmt.Fprintln(w, "no session approvals")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "N\tTOOL\tCOVERS\tEXPIRES")
	for i, a := range allows {
		left := time.Until(a.Expires).Round(time.Second)
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s (in %s)\n", i+1, show(a.Tool, 200), show(a.Covers, 400), a.Expires.Local().Format(time.TimeOnly), left)
	}
	tw.Flush()
	fmt.Fprintln(w, "each covers calls of its tool with the same subjects in this session; /approvals revoke N|all")
}

// writeAllows is the /approvals table of the allows the host listed.
func writeAllows(w io.Writer, raw json.RawMessage) error {
	var list []Allow
	if err := json.Unmarshal(raw, &list); err != nil {
		return err
	}
	WriteApprovals(w, list, func(s string, _ int) string { return s })
	return nil
}
