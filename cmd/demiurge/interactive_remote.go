package main

import (
	"context"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/termsession"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/hostd"
	"demiurge.dev/host/plugins"
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
	display, err := catalog.ParseDisplayMode(c.String("tool-display"))
	if err != nil {
		return usagef("--tool-display: %v", err)
	}
	return termsession.RunRemote(termsession.RemoteConfig{
		Ctx: c.Context, State: state, Stdin: plugins.OperatorStdin(), TTY: operatorCanAnswer(),
		Stdout: c.App.Writer, Stderr: os.Stderr, Display: display,
		ToolDisplay: c.String("tool-display"), Principal: c.String("principal"), Quiet: c.Bool("quiet"),
		Dial:      func() (*hostd.Client, error) { return connectHost(c) },
		Open:      hostOpenOptions(c, resume, nil),
		OpenError: openError,
		// A host older than protocol 1.11 sends no card: it is rendered here.
		OldApprover: func(out io.Writer, lines func(context.Context, string) (string, error)) termsession.Approver {
			return askWith(func(string) {}, &approval.Terminal{Out: out, Lines: lines})
		},
	})
}
