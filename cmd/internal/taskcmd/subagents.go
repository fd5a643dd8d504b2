package taskcmd

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/agents/agentmeta"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/termtext"
)

// subagent is one child as the operator sees it.
type subagent struct {
	TaskID string         `json:"task_id"`
	State  string         `json:"state"`
	Meta   agentmeta.Meta `json:"agent"`
}

func subagentOf(t runtime.Task) (subagent, bool) {
	if t.Tool != agentmeta.TaskTool {
		return subagent{}, false
	}
	var m agentmeta.Meta
	_ = json.Unmarshal(t.Agent, &m)
	return subagent{TaskID: t.ID, State: string(t.State), Meta: m}, true
}

// Subagents is `demiurge subagents [ID|last]`: the caller's child agents.
func Subagents(tc *Cmd, args []string) error {
	if len(args) == 1 && args[0] == "last" {
		ts, err := tc.M.List(tc.Scope)
		if err != nil {
			return err
		}
		args = []string{"task_none"}
		for _, t := range ts {
			if t.Tool == agentmeta.TaskTool {
				args = []string{t.ID}
				break
			}
		}
	}
	if len(args) == 1 {
		t, err := tc.M.Get(tc.Scope, args[0])
		if err != nil {
			return err
		}
		s, ok := subagentOf(t)
		if !ok {
			// Not a child agent: answered as a missing one.
			return fmt.Errorf("task %q: %w; `demiurge subagents` shows your child agents", termtext.Printable(args[0], 64), runtime.ErrTaskNotFound)
		}
		if tc.JSON {
			return frontview.WriteJSON(tc.Out, s)
		}
		return writeSubagentDetail(tc.Out, s)
	}
	ts, err := tc.M.List(tc.Scope)
	if err != nil {
		return err
	}
	frontview.OldestFirst(ts, func(t runtime.Task) time.Time { return t.Created }, func(t runtime.Task) string { return t.ID })
	list := []subagent{}
	for _, t := range ts {
		if s, ok := subagentOf(t); ok {
			list = append(list, s)
		}
	}
	if tc.JSON {
		return frontview.WriteJSON(tc.Out, list)
	}
	return writeSubagentTable(tc.Out, list)
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
			s.Meta.Depth, status, s.Meta.Steps, s.Meta.Usage.InputTokens+s.Meta.Usage.OutputTokens, termtext.Printable(oneLine(s.Meta.Goal), 60))
	}
	return tw.Flush()
}

func writeSubagentDetail(w io.Writer, s subagent) error {
	m := s.Meta
	fmt.Fprintf(w, "task:      %s (%s)\nagent:     %s\nparent:    %s (root %s)\ncore:      %s\ndepth:     %d (its subtree may reach %d)\n",
		s.TaskID, s.State, m.AgentID, m.Parent, m.Root, orDash(m.Core), m.Depth, m.MaxDepth)
	fmt.Fprintf(w, "goal:      %s\nstatus:    %s, %d steps, %d input / %d output tokens\n", termtext.Printable(oneLine(m.Goal), 200), orDash(m.Status), m.Steps, m.Usage.InputTokens, m.Usage.OutputTokens)
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

func slotText(s agentmeta.SlotSelection) string {
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

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
