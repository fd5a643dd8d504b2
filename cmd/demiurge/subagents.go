package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/runtime"
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
		Action:    tasksAction(subagents),
	}
}

// subagent is one child as the operator sees it.
type subagent struct {
	TaskID string      `json:"task_id"`
	State  string      `json:"state"`
	Meta   agents.Meta `json:"agent"`
}

func subagentOf(t runtime.Task) (subagent, bool) {
	if t.Tool != agents.TaskTool {
		return subagent{}, false
	}
	var m agents.Meta
	_ = json.Unmarshal(t.Agent, &m)
	return subagent{TaskID: t.ID, State: string(t.State), Meta: m}, true
}

func subagents(tc *taskCmd, args []string) error {
	if len(args) == 1 && args[0] == "last" {
		ts, err := tc.m.List(tc.scope)
		if err != nil {
			return err
		}
		args = []string{"task_none"}
		for _, t := range ts {
			if t.Tool == agents.TaskTool {
				args = []string{t.ID}
				break
			}
		}
	}
	if len(args) == 1 {
		t, err := tc.m.Get(tc.scope, args[0])
		if err != nil {
			return err
		}
		s, ok := subagentOf(t)
		if !ok {
			// Not a child agent: answered as a missing one.
			return fmt.Errorf("task %q: %w; `demiurge subagents` shows your child agents", printable(args[0], 64), runtime.ErrTaskNotFound)
		}
		if tc.json {
			return writeJSON(tc.out, s)
		}
		return writeSubagentDetail(tc.out, s)
	}
	ts, err := tc.m.List(tc.scope)
	if err != nil {
		return err
	}
	oldestFirst(ts, func(t runtime.Task) time.Time { return t.Created }, func(t runtime.Task) string { return t.ID })
	list := []subagent{}
	for _, t := range ts {
		if s, ok := subagentOf(t); ok {
			list = append(list, s)
		}
	}
	if tc.json {
		return writeJSON(tc.out, list)
	}
	return writeSubagentTable(tc.out, list)
}

func writeSubagentTable(w io.Writer, list []subagent) error {
	if len(list) == 0 {
		_, err := fmt.Fprintln(w, "No child agents.")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tAGENT\tPARENT\tCORE\tDEPTH\tSTATUS\tSTEPS\tTOKENS\tGOAL")
	for _, s := range list {
		status := s.Meta.Status
		if status == "" {
			status = s.State
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%d\t%d\t%s\n", s.TaskID, s.Meta.AgentID, s.Meta.Parent, orDash(s.Meta.Core),
			s.Meta.Depth, status, s.Meta.Steps, s.Meta.Usage.InputTokens+s.Meta.Usage.OutputTokens, printable(oneLine(s.Meta.Goal), 60))
	}
	return tw.Flush()
}

func writeSubagentDetail(w io.Writer, s subagent) error {
	m := s.Meta
	fmt.Fprintf(w, "task:      %s (%s)\nagent:     %s\nparent:    %s (root %s)\ncore:      %s\ndepth:     %d (its subtree may reach %d)\n",
		s.TaskID, s.State, m.AgentID, m.Parent, m.Root, orDash(m.Core), m.Depth, m.MaxDepth)
	fmt.Fprintf(w, "goal:      %s\nstatus:    %s, %d steps, %d input / %d output tokens\n", printable(oneLine(m.Goal), 200), orDash(m.Status), m.Steps, m.Usage.InputTokens, m.Usage.OutputTokens)
	r := m.Requested
	fmt.Fprintf(w, "requested: tools=%s input_slots=%s output_slots=%s use_bootstrap=%t context_mode=%s notify_policy=%s max_depth=%s core_id=%s\n",
		toolsText(r.Tools), slotText(r.InputSlots), slotText(r.OutputSlots), r.UseBootstrap, r.ContextMode, r.NotifyPolicy, intText(r.MaxDepth), orDash(r.CoreID))
	v := m.Resolved
	fmt.Fprintf(w, "resolved:  tools=%s\n           input pipeline=%s output pipeline=%s use_bootstrap=%t\n           budget: %d steps, %d output tokens, %ds\n",
		strings.Join(v.Tools, ","), groupsText(v.Input), groupsText(v.Output), v.UseBootstrap, v.Steps, v.OutputTokens, v.WallSeconds)
	return nil
}

func toolsText(t []string) string {
	switch {
	case t == nil:
		return "all"
	case len(t) == 0:
		return "none"
	}
	return "[" + strings.Join(t, ",") + "]"
}

func slotText(s agents.SlotSelection) string {
	if s.All {
		return "all"
	}
	if len(s.IDs) == 0 {
		return "base"
	}
	return "[" + strings.Join(s.IDs, ",") + "]"
}

func intText(p *int) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprint(*p)
}

func groupsText(gs [][]string) string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		parts[i] = strings.Join(g, "|")
	}
	return strings.Join(parts, " > ")
}

// subagents is /subagents in the interactive session: this session's
// child agents, under the same owner check as /tasks.
func (r *repl) subagents(arg string) {
	tc := &taskCmd{ctx: context.Background(), out: r.Out}
	var args []string
	for _, f := range strings.Fields(arg) {
		switch {
		case f == "--json":
			tc.json = true
		case strings.HasPrefix(f, "-"):
			fmt.Fprintln(r.Out, "usage: /subagents [ID] [--json]")
			return
		default:
			args = append(args, f)
		}
	}
	if len(args) > 1 {
		fmt.Fprintln(r.Out, "usage: /subagents [ID] [--json]")
		return
	}
	m, scope, done, err := r.taskSource()
	if err != nil {
		fmt.Fprintln(r.Out, err)
		return
	}
	defer done()
	tc.m, tc.scope = m, scope
	if err := subagents(tc, args); err != nil {
		fmt.Fprintln(r.Out, err)
	}
}
