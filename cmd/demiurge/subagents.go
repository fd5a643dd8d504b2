package main

import (
	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/taskcmd"
)

// subagentsCommand lists this principal's child agents (agent.spawn
// tasks) or shows one with its operator-only metadata: the requested
// controls and the resolved child pipeline. A foreign and a missing id
// get the same answer (the task scope's).
func subagentsCommand() *cli.Command {
	return &cli.Command{
		Name:      "subagents",
		Usage:     "child agents of this principal: id, parent, core, goal, depth, status, steps, tokens; with ID, one in detail",
		ArgsUsage: "[ID] (or 'last', the newest child)",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print JSON"}},
		Action:    tasksAction(taskcmd.Subagents),
	}
}

// subagents is /subagents in the interactive session: this session's
// child agents, under the same owner check as /tasks.
func (r *repl) subagents(arg string) { taskcmd.ReplSubagents(r.Out, arg, r.taskSource) }
