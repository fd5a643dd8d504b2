package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/cmd/internal/taskcmd"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
)

// The binary doubles as the task reaper, a helper each host starts to end
// its background commands if it dies (see runtime.Reaper).
func init() {
	if len(os.Args) == 2 && os.Args[1] == runtime.ReaperArg {
		os.Exit(runtime.RunReaper(os.Stdin))
	}
	toolhost.TaskReaperExecutable = os.Executable
	toolhost.ServeTaskSocket = true
}

// taskSource is the task manager of this process, or the live one of the
// demiurge that holds the store, reached through its task socket.
type taskSource = taskcmd.Source

// defaultWaitTimeout bounds `tasks wait` without --timeout.
const defaultWaitTimeout = taskcmd.DefaultWaitTimeout

func tasksCommand() *cli.Command {
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print JSON"}
	idUsage := "ID (or 'last', the newest task)"
	return &cli.Command{
		Name:  "tasks",
		Usage: "background tasks of this principal: list, show, logs, wait, cancel",
		Description: "Background tasks live as long as the demiurge process that started them. While it runs, " +
			"these commands ask it (the long-lived host over STATE/runtime/host.sock, a command that is a host of its own over STATE/runtime/tasks.sock); afterwards they read the record in the store.",
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "the tasks, newest first", Flags: []cli.Flag{jsonFlag}, Action: tasksAction(taskcmd.List)},
			{Name: "show", Usage: "one task: state, return code, exit reason, output tails", ArgsUsage: idUsage, Flags: []cli.Flag{jsonFlag}, Action: tasksAction(taskcmd.Show)},
			{Name: "logs", Usage: "a task's stored output", ArgsUsage: idUsage, Flags: []cli.Flag{jsonFlag,
				&cli.BoolFlag{Name: "follow", Aliases: []string{"f"}, Usage: "keep printing until the task ends"}}, Action: tasksAction(taskcmd.Logs)},
			{Name: "wait", Usage: "wait for a task to end; on timeout print its current status with timed_out", ArgsUsage: idUsage, Flags: []cli.Flag{jsonFlag,
				&cli.DurationFlag{Name: "timeout", Value: defaultWaitTimeout, Usage: "how long to wait"},
				&cli.BoolFlag{Name: "exit-code", Usage: "exit with the task's return code (124 on timeout, 1 when it ended without one)"}}, Action: tasksAction(taskcmd.Wait)},
			{Name: "cancel", Usage: "cancel a running task (its process tree is killed)", ArgsUsage: idUsage, Flags: []cli.Flag{jsonFlag}, Action: tasksAction(taskcmd.Cancel)},
		},
	}
}

// taskCmd is one tasks subcommand's context (taskcmd.Cmd).
type taskCmd = taskcmd.Cmd

func tasksAction(fn func(tc *taskCmd, args []string) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.Command.Name == "subagents" {
			if c.NArg() > 1 {
				return usagef("subagents takes at most one id (an agent.spawn task id)")
			}
		} else if c.Command.Name != "list" && c.NArg() != 1 {
			return usagef("tasks %s takes one task id", c.Command.Name)
		}
		if c.Command.Name == "list" && c.NArg() != 0 {
			return usagef("tasks list takes no arguments")
		}
		if c.Command.Name == "wait" && c.Duration("timeout") <= 0 {
			return usagef("--timeout must be more than zero")
		}
		h, err := openHost(c, nil)
		if err != nil {
			return err
		}
		defer h.Close()
		// A running demiurge holds the store and owns its live tasks: ask
		// it first; otherwise read the store.
		var m taskSource
		if viaHost, closeHost, ok := hostTasks(c, h.StateDir); ok {
			defer closeHost()
			m = viaHost
		} else if remote, err := runtime.DialTasks(toolhost.TaskSocketPath(h.StateDir)); err == nil {
			m = remote
		} else {
			local, err := h.Tasks()
			if runtime.IsLocked(err) {
				return fmt.Errorf("the state store is held by a running demiurge, which owns its live tasks and does not answer on %s: use /tasks in that session, or run this once it has exited (%w)", toolhost.TaskSocketPath(h.StateDir), err)
			}
			if err != nil {
				return err
			}
			m = local
		}
		ctx, stop := interruptContext(c.Context)
		defer stop()
		tc := &taskCmd{Ctx: ctx, M: m, Scope: h.OperatorTaskScope(), Out: c.App.Writer,
			JSON: c.Bool("json"), Follow: c.Bool("follow"), Wait: c.Duration("timeout"), ExitCode: c.Bool("exit-code"), ExitStatus: taskExitStatus}
		err = fn(tc, c.Args().Slice())
		if _, remote := m.(*runtime.RemoteTasks); remote && errors.Is(err, runtime.ErrOwnerGone) {
			// The owner exited after it answered (its last task ended):
			// what it recorded is in the store, which it has let go.
			local, lerr := h.Tasks()
			if lerr != nil {
				return err
			}
			tc.M = local
			return fn(tc, c.Args().Slice())
		}
		return err
	}
}

// taskExitStatus is the status `tasks wait --exit-code` exits with
// (frontview.TaskExitStatus: the small front end exits with it too).
func taskExitStatus(t runtime.Task, timedOut bool) error {
	if code := frontview.TaskExitStatus(t, timedOut); code != 0 {
		return cli.Exit("", code)
	}
	return nil
}

func returnCode(t runtime.Task) string { return frontview.ReturnCode(t) }

// waitForBackgroundTasks keeps a one-shot command's host alive while the
// background tasks it started run: they live as long as this process.
// Ctrl-C or SIGTERM cancels them through the cancel path.
func waitForBackgroundTasks(h *toolhost.Host) {
	m, err := h.Tasks()
	if err != nil || m.Running() == 0 {
		return
	}
	fmt.Fprintf(os.Stderr, "demiurge: %d background task(s) running; waiting for them to end (they end with this process: Ctrl-C cancels them; `demiurge tasks` in another shell follows them)\n", m.Running())
	ctx, stop := interruptContext(context.Background())
	defer stop()
	if m.WaitAll(ctx) != nil {
		fmt.Fprintln(os.Stderr, "demiurge: cancelling the background tasks")
		m.CancelAll(runtime.ExitReasonCancelled)
	}
	ts, _ := m.List(h.TaskScope())
	for _, t := range ts {
		fmt.Fprintf(os.Stderr, "demiurge: task %s %s (rc %s, %s)\n", t.ID, t.State, returnCode(t), dash(t.ExitReason))
	}
}

// tasks is /tasks in the interactive session (taskcmd.Repl).
func (r *repl) tasks(ctx context.Context, arg string) { taskcmd.Repl(ctx, r.Out, arg, r.taskSource) }

// taskSource is the in-process session's tasks (the session through
// the host asks the host: termsession).
func (r *repl) taskSource() (taskSource, runtime.TaskScope, func(), error) {
	m, err := r.h.Tasks()
	return m, r.h.TaskScope(), func() {}, err
}

// noteTasksOnExit says, as the session ends, that its running background
// tasks are about to be cancelled (they live as long as the session).
func noteTasksOnExit(w io.Writer, h *toolhost.Host) {
	if n := h.RunningTasks(); n > 0 {
		fmt.Fprintf(w, "cancelling %d running background task(s): they end with the session\n", n)
	}
}
