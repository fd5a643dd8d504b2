package agents

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/toolhost"
)

// payload is the model's bounded view of a child: never the operator's
// metadata (requested controls, resolved pipeline, owner).
type payload struct {
	Content string `json:"content"`
	Status  string `json:"status"`
	TaskID  string `json:"task_id"`
	AgentID string `json:"agent_id"`
	Answer  string `json:"answer,omitempty"`
	Steps   int    `json:"steps,omitempty"`
	Usage   *struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	} `json:"usage,omitempty"`
}

// Delegate answers one delegate_task call of parent: it parses the call's
// own arguments, spawns through the gate, and returns the task id (a
// background child) or the child's result (notify_policy wait).
func (g *Gate) Delegate(ctx context.Context, parent *toolhost.Session, call dispatch.DelegateCall) (string, error) {
	if call.Authored {
		return g.spawnAuthored(ctx, parent, call)
	}
	req, err := ParseDelegate(call.Args)
	if err != nil {
		return "", err
	}
	req.Asker, req.FrontEnd = call.Asker, call.FrontEnd
	c, err := g.Spawn(ctx, parent, call.Turn, call.CallID, req)
	if err != nil {
		return "", err
	}
	if req.NotifyPolicy != NotifyReturn && call.Completions != nil {
		// Its end is returned here (wait) or asked for (silent): no
		// completion turn reports it.
		call.Completions.Consume(c.TaskID)
	}
	if req.NotifyPolicy != NotifyWait {
		p := payload{Status: "running", TaskID: c.TaskID, AgentID: c.AgentID}
		p.Content = fmt.Sprintf("Started child %s (task %s, depth %d).", c.AgentID, c.TaskID, c.Depth)
		if req.NotifyPolicy == NotifyReturn {
			p.Content += " Its answer comes back when it ends; yield_until(task_id) waits for it."
		} else {
			p.Content += " No completion turn will report it: use task_status or yield_until."
		}
		return marshal(p)
	}
	return marshal(resultPayload(g.waitForeground(ctx, parent, c)))
}

// waitForeground waits for a foreground child; the caller's end (its
// turn stopped) cancels it.
func (g *Gate) waitForeground(ctx context.Context, parent *toolhost.Session, c *Child) AgentRunResult {
	res, ok := c.Wait(ctx)
	if !ok {
		// The parent's turn was stopped: a foreground child stops with it.
		if tm, err := g.Host.Tasks(); err == nil {
			_, _ = tm.Cancel(context.WithoutCancel(ctx), parent.TaskScope(), c.TaskID)
		}
		wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if res, ok = c.Wait(wctx); !ok {
			res = AgentRunResult{Status: StatusCancelled, TaskID: c.TaskID, AgentID: c.AgentID}
		}
	}
	// Return once the child's end is durable, so that its task record
	// (/subagents, task_status) says what this result says.
	if tm, err := g.Host.Tasks(); err == nil {
		wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		_, _, _ = tm.Wait(wctx, parent.TaskScope(), c.TaskID, 30*time.Second)
		cancel()
	}
	return res
}

func resultPayload(r AgentRunResult) payload {
	p := payload{Status: r.Status, TaskID: r.TaskID, AgentID: r.AgentID, Steps: r.Steps,
		Answer: bounded(r.Answer, dispatch.MaxChildAnswer)}
	p.Usage = &struct {
		InputTokens  int64 `json:"input_tokens"`
		OutputTokens int64 `json:"output_tokens"`
	}{r.Usage.InputTokens, r.Usage.OutputTokens}
	p.Content = fmt.Sprintf("Child %s ended: %s after %d steps.", r.AgentID, r.Status, r.Steps)
	if p.Answer != "" {
		p.Content += "\n" + p.Answer
	}
	return p
}

func marshal(p payload) (string, error) {
	b, err := json.Marshal(p)
	return string(b), err
}

func bounded(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
