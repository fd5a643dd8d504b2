// Command demiurge is the Demiurge tool host's command line: list and call
// tools through the one call path, inspect plugins and the audit log, or
// run an interactive session.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"demiurge.dev/shared/procfd"
)

// Exit codes: 0 success, 1 a failed call or operation, 2 usage.
const (
	exitFailed = 1
	exitUsage  = 2
)

func main() {
	// What the operator's shell left open for us reaches no plugin, MCP
	// server, worker or command we start.
	if err := procfd.CloseOnExecAbove2(); err != nil {
		fmt.Fprintf(os.Stderr, "demiurge: mark inherited descriptors close-on-exec: %v\n", err)
		os.Exit(1)
	}
	os.Exit(run(os.Args))
}

// run is main without the exit, for testscript.
func run(args []string) int {
	caughtSignal.Store(0) // a signal of an earlier in-process run is not this one's
	app := newApp()
	err := app.Run(intersperse(app, args))
	if code := caughtSignal.Load(); code != 0 {
		// Interrupted: what the cancelled work says about its context
		// is no news to the operator who pressed Ctrl-C.
		if err != nil && !errors.Is(err, context.Canceled) && err.Error() != "" {
			fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
		}
		return int(code)
	}
	if err == nil {
		return 0
	}
	var ue usageError
	var ec cli.ExitCoder
	switch {
	case errors.As(err, &ue):
		fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
		fmt.Fprintln(os.Stderr, "run 'demiurge help' for usage")
		return exitUsage
	case errors.As(err, &ec):
		if msg := err.Error(); msg != "" {
			fmt.Fprintf(os.Stderr, "demiurge: %s\n", msg)
		}
		return ec.ExitCode()
	}
	fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
	return exitFailed
}

// usageError marks a mistake in how the command was called.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// usageErrorsExitTwo gives every subcommand the app's answer to a bad
// flag: urfave/cli does not pass OnUsageError down, and a subcommand's
// unknown flag would otherwise exit 1 like a failed call.
func usageErrorsExitTwo(cmds []*cli.Command) {
	for _, c := range cmds {
		if c.OnUsageError == nil {
			c.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usageError{err} }
		}
		usageErrorsExitTwo(c.Subcommands)
	}
}

// failed is an error whose message was already printed.
func failed() error { return cli.Exit("", exitFailed) }

func newApp() *cli.App {
	app := &cli.App{
		Name:                 "demiurge",
		Version:              version,
		Usage:                "the tool host for AI agents",
		Description:          "With no command, starts an interactive session in the workspace.",
		Flags:                globalFlags(),
		EnableBashCompletion: true,
		HideHelpCommand:      false,
		Action:               interactive,
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageError{err}
		},
		// run maps every error to its exit status (and an interrupt to
		// 130); urfave/cli would otherwise exit at once on an ExitCoder.
		ExitErrHandler: func(*cli.Context, error) {},
		CommandNotFound: func(c *cli.Context, name string) {
			cmds, help := c.App.Commands, "demiurge help"
			if c.Command != nil && len(c.Command.Subcommands) > 0 {
				cmds, help = c.Command.Subcommands, "demiurge "+c.Command.Name+" --help"
			}
			fmt.Fprintf(os.Stderr, "demiurge: unknown command %q%s; run '%s'\n",
				name, didYouMeanSuffix(name, commandNames(cmds)), help)
			os.Exit(exitUsage)
		},
		Commands: []*cli.Command{
			toolsCommand(),
			pluginsCommand(),
			auditCommand(),
			packageCommand(),
			tasksCommand(),
			subagentsCommand(),
			mcpCommand(),
			policyCommand(),
			sandboxCommand(),
			runCommand(),
			sessionsCommand(),
			coreCommand(),
			approvalsCommand(),
			hostCommand(),
			schedulesCommand(),
			acpCommand(),

			versionCommand(),
			completionCommand(),
		},
	}
	usageErrorsExitTwo(app.Commands)
	quietBoolDefaults(app.Flags, app.Commands)
	return app
}
