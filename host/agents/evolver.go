package agents

import (
	"context"
	"fmt"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/toolhost"
)

// evolverGoal frames the run's goal for the evolver: where it works, and
// that the host's gates and the operator judge what it does.
const evolverGoal = `You are the evolver of an evolution run of this agent's core. Your workspace is the run's work tree: agents/<core_id>/ of a copy of the live core (agent.yaml, pipelines.yaml, skills, tools, MCP declarations). Change only what the goal asks, there, with your file tools; you cannot write anywhere else. When you are done, say in a few lines what you changed. The host's gates and the operator review it before it becomes live.

Goal: %s`

// runEvolver runs an evolution run's evolver (toolhost.Evolver): a child
// of parent on eh, the host of core evolver in the run's work tree, through
// the same gate as every child (depth, fan-out, per-turn bounds, the
// task, the record); it waits for its end, as a foreground child does (a
// background start already runs as a task of its own).
func (g *Gate) runEvolver(ctx context.Context, parent *toolhost.Session, call dispatch.CoreCall, eh *toolhost.Host, goal string) (string, error) {
	c, err := g.spawnOn(ctx, parent, call.Turn, call.CallID, Request{Goal: fmt.Sprintf(evolverGoal, goal), Card: goal, ContextMode: "isolated", Asker: call.Asker, FrontEnd: call.FrontEnd}, eh)
	if err != nil {
		return "", err
	}
	res := g.waitForeground(ctx, parent, c)
	if res.Status != StatusCompleted {
		return "", fmt.Errorf("the evolver ended %s (task %s): %s", res.Status, res.TaskID, res.Answer)
	}
	return res.Answer, nil
}
