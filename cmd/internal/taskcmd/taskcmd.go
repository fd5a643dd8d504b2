// Package taskcmd is the tasks commands' core (list, show, logs, wait,
// cancel, subagents) over any task source: the full CLI's `demiurge
// tasks` and /tasks, and the small front end's session's /tasks, are
// this code. It links no host package beyond the task types.
package taskcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/runtime"
)

// Source is a task manager: this process's, or the live one of the
// demiurge that holds the store (its task socket), or the host's.
type Source interface {
	List(scope runtime.TaskScope) ([]runtime.Task, error)
	Get(scope runtime.TaskScope, id string) (runtime.Task, error)
	Wait(ctx context.Context, scope runtime.TaskScope, id string, timeout time.Duration) (runtime.Task, bool, error)
	Cancel(ctx context.Context, scope runtime.TaskScope, id string) (runtime.Task, error)
	Logs(ctx context.Context, scope runtime.TaskScope, id string, after uint64, follow bool, fn func(runtime.LogChunk) error) error
}

// DefaultWaitTimeout bounds `tasks wait` without --timeout.
const DefaultWaitTimeout = 30 * time.Second

// Cmd is one tasks command's context.
type Cmd struct {
	Ctx      context.Context
	M        Source
	Scope    runtime.TaskScope
	Out      io.Writer
	JSON     bool
	Follow   bool
	Wait     time.Duration
	ExitCode bool
	// ExitStatus is the error `wait --exit-code` ends with (nil: none).
	ExitStatus func(t runtime.Task, timedOut bool) error
}

// Resolve turns 'last' into the newest task's id.
func (tc *Cmd) Resolve(id string) (string, error) {
	if id != "last" {
		return id, nil
	}
	ts, err := tc.M.List(tc.Scope)
	if err != nil {
		return "", err
	}
	if len(ts) == 0 {
		return "", errors.New("there are no tasks yet")
	}
	return ts[0].ID, nil
}

// List is `tasks list`.
func List(tc *Cmd, _ []string) error {
	ts, err := tc.M.List(tc.Scope)
	if err != nil {
		return err
	}
	return frontview.Tasks(tc.Out, ts, tc.JSON)
}

// Show is `tasks show ID`.
func Show(tc *Cmd, args []string) error {
	id, err := tc.Resolve(args[0])
	if err != nil {
		return err
	}
	t, err := tc.M.Get(tc.Scope, id)
	if err != nil {
		return err
	}
	return tc.print(t, nil)
}

// Logs is `tasks logs ID [--follow]`.
func Logs(tc *Cmd, args []string) error {
	id, err := tc.Resolve(args[0])
	if err != nil {
		return err
	}
	return WriteLogs(tc.Ctx, tc.M, tc.Scope, id, tc.Follow, tc.JSON, tc.Out)
}

// Wait is `tasks wait ID`.
func Wait(tc *Cmd, args []string) error {
	id, err := tc.Resolve(args[0])
	if err != nil {
		return err
	}
	t, timedOut, err := tc.M.Wait(tc.Ctx, tc.Scope, id, tc.Wait)
	if err != nil {
		return err
	}
	if err := tc.print(t, &timedOut); err != nil || !tc.ExitCode || tc.ExitStatus == nil {
		return err
	}
	return tc.ExitStatus(t, timedOut)
}

// Cancel is `tasks cancel ID`.
func Cancel(tc *Cmd, args []string) error {
	id, err := tc.Resolve(args[0])
	if err != nil {
		return err
	}
	before, err := tc.M.Get(tc.Scope, id)
	if err != nil {
		return err
	}
	t, err := tc.M.Cancel(tc.Ctx, tc.Scope, id)
	if err != nil {
		return err
	}
	return frontview.Cancelled(tc.Out, id, before, t, tc.JSON)
}

// print is the task as the small front end prints it too (frontview).
func (tc *Cmd) print(t runtime.Task, timedOut *bool) error {
	return frontview.Task(tc.Out, t, timedOut, tc.JSON)
}

// WriteLogs prints a task's chunks, as the small front end does too
// (frontview.TaskLogChunk).
func WriteLogs(ctx context.Context, m Source, scope runtime.TaskScope, id string, follow, asJSON bool, w io.Writer) error {
	first := true
	return m.Logs(ctx, scope, id, 0, follow, func(c runtime.LogChunk) error {
		err := frontview.TaskLogChunk(w, os.Stderr, c, first, asJSON)
		first = false
		return err
	})
}

// ReplHelp is the usage of /tasks.
const ReplHelp = "usage: /tasks [list] | show ID | logs ID [--follow] | wait ID [--timeout 30s] | cancel ID   (add --json for JSON; ID may be 'last')"

// Repl is /tasks in the interactive session: the same subcommands as
// `demiurge tasks`, on this session's live tasks (source opens them;
// done is called after). Ctrl-C stops a wait or a follow, not the task.
func Repl(ctx context.Context, out io.Writer, arg string, source func() (Source, runtime.TaskScope, func(), error)) {
	fields := strings.Fields(arg)
	sub := "list"
	if len(fields) > 0 {
		sub, fields = fields[0], fields[1:]
	}
	tc := &Cmd{Out: out, Wait: DefaultWaitTimeout}
	var args []string
	for i := 0; i < len(fields); i++ {
		switch f := fields[i]; {
		case f == "--json":
			tc.JSON = true
		case f == "--follow" || f == "-f":
			tc.Follow = true
		case f == "--timeout" && i+1 < len(fields):
			d, err := time.ParseDuration(fields[i+1])
			if err != nil || d <= 0 {
				fmt.Fprintf(out, "--timeout: want a duration such as 30s\n")
				return
			}
			tc.Wait, i = d, i+1
		case strings.HasPrefix(f, "-"):
			fmt.Fprintln(out, ReplHelp)
			return
		default:
			args = append(args, f)
		}
	}
	run := map[string]func(*Cmd, []string) error{
		"list": List, "show": Show, "logs": Logs, "wait": Wait, "cancel": Cancel,
	}[sub]
	if run == nil || (sub == "list") != (len(args) == 0) || len(args) > 1 {
		fmt.Fprintln(out, ReplHelp)
		return
	}
	m, scope, done, err := source()
	if err != nil {
		fmt.Fprintln(out, err)
		return
	}
	defer done()
	tc.Ctx, tc.M, tc.Scope = ctx, m, scope
	if err := run(tc, args); err != nil {
		fmt.Fprintln(out, err)
	}
}

// ReplSubagents is /subagents in the interactive session: this session's
// child agents, under the same owner check as /tasks.
func ReplSubagents(out io.Writer, arg string, source func() (Source, runtime.TaskScope, func(), error)) {
	tc := &Cmd{Ctx: context.Background(), Out: out}
	var args []string
	for _, f := range strings.Fields(arg) {
		switch {
		case f == "--json":
			tc.JSON = true
		case strings.HasPrefix(f, "-"):
			fmt.Fprintln(out, "usage: /subagents [ID] [--json]")
			return
		default:
			args = append(args, f)
		}
	}
	if len(args) > 1 {
		fmt.Fprintln(out, "usage: /subagents [ID] [--json]")
		return
	}
	m, scope, done, err := source()
	if err != nil {
		fmt.Fprintln(out, err)
		return
	}
	defer done()
	tc.M, tc.Scope = m, scope
	if err := Subagents(tc, args); err != nil {
		fmt.Fprintln(out, err)
	}
}

// NoteGoingOn says, as a session in the host ends, that its queued or
// running background tasks go on: they belong to the host, which
// outlives its front ends (in process they end with the session).
func NoteGoingOn(out io.Writer, m Source, scope runtime.TaskScope) {
	list, err := m.List(scope)
	if err != nil {
		return
	}
	n := 0
	for _, t := range list {
		if t.State == runtime.TaskQueued || t.State == runtime.TaskRunning {
			n++
		}
	}
	if n > 0 {
		fmt.Fprintf(out, "%d background task(s) go on in the host: demiurge tasks list shows them, demiurge tasks cancel ID ends one\n", n)
	}
}
