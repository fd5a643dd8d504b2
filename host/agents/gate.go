package agents

import (
	"context"
	"demiurge.dev/host/agents/agentmeta"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// TaskTool is the Tool of an agent.spawn task.
const TaskTool = agentmeta.TaskTool

// LoopFactory makes the turn loop a child runs in: the parent's model
// and store over the child's session. The gate sets its budget, stages
// and instructions.
type LoopFactory func(child *toolhost.Session) (*turn.Loop, error)

// Gate is the host's one spawn gate.
type Gate struct {
	Host    *toolhost.Host
	NewLoop LoopFactory
	Limits  Limits
	// OnFirstRequest, when set, is told when a child's first model
	// request starts (the spawn benchmark).
	OnFirstRequest func(agentID string)

	mu sync.Mutex
	// depthCap is the deepest a session's descendants may go (absolute
	// depth; a top-level session's is Limits.MaxDepth).
	depthCap map[string]int
	running  map[string]int // root session id: children running
	perTurn  map[string]int // turn id: children started
	// roots are the top-level runs admitted by SpawnRoot (session id),
	// slots their semaphore (Limits.MaxRoots), waiting those queued.
	roots   map[string]RootInfo
	slots   chan struct{}
	waiting int
}

// initLocked makes the gate's maps; g.mu is held.
func (g *Gate) initLocked() {
	if g.depthCap == nil {
		g.depthCap, g.running, g.perTurn = map[string]int{}, map[string]int{}, map[string]int{}
	}
}

// Install makes g the spawn gate of its host's sessions.
func (g *Gate) Install() {
	g.Host.SetSpawnGate(func(ctx context.Context, parent *toolhost.Session, call dispatch.DelegateCall) (string, error) {
		out, err := g.Delegate(ctx, parent, call)
		switch {
		case errors.Is(err, ErrRefused) && call.Authored:
			// Authored code raises ValueError with the reason alone.
			err = fmt.Errorf("%w: %s", plugins.ErrSpawnRefused, strings.TrimPrefix(err.Error(), ErrRefused.Error()+": "))
		case errors.Is(err, ErrRefused):
			err = fmt.Errorf("%w: %w", plugins.ErrSpawnRefused, err)
		}
		return out, err
	})
	g.Host.SetAgentTasks(func(ctx context.Context, parent *toolhost.Session, op, taskID string, timeout time.Duration) (string, error) {
		out, err := g.AgentTask(ctx, parent, op, taskID, timeout)
		if errors.Is(err, ErrRefused) {
			err = fmt.Errorf("%w: %s", plugins.ErrSpawnRefused, strings.TrimPrefix(err.Error(), ErrRefused.Error()+": "))
		}
		return out, err
	})
	g.Host.SetEvolver(g.runEvolver)
}

// Child is a started child.
type Child struct {
	TaskID, AgentID string
	Depth           int
	done            chan AgentRunResult
}

// Wait waits for the child's end, or ctx's (ok false).
func (c *Child) Wait(ctx context.Context) (AgentRunResult, bool) {
	select {
	case r := <-c.done:
		c.done <- r // for other waiters
		return r, true
	case <-ctx.Done():
		return AgentRunResult{}, false
	}
}

// Spawn starts a child of parent, for a call of turn turnID (call id
// callID), as req asks. Every refusal wraps ErrRefused and starts
// nothing.
func (g *Gate) Spawn(ctx context.Context, parent *toolhost.Session, turnID, callID string, req Request) (*Child, error) {
	host, err := g.coreHost(parent, req.CoreID)
	if err != nil {
		return nil, err
	}
	return g.spawnOn(ctx, parent, turnID, callID, req, host)
}

// spawnOn is Spawn of a child that runs on host.
func (g *Gate) spawnOn(ctx context.Context, parent *toolhost.Session, turnID, callID string, req Request, host *toolhost.Host) (*Child, error) {
	lim := g.Limits.withDefaults()
	pl := host.Core.Pipelines
	input, err := selectGroups("input_slots", pl.Input, req.InputSlots)
	if err != nil {
		return nil, err
	}
	output, err := selectGroups("output_slots", pl.Output, req.OutputSlots)
	if err != nil {
		return nil, err
	}
	tm, err := g.Host.Tasks()
	if err != nil {
		return nil, fmt.Errorf("child agents need the task manager: %w", err)
	}
	depth := parent.Depth() + 1
	root := parent.Root().ID()
	release, childCap, err := g.admit(parent.ID(), root, turnID, depth, req.MaxDepth, lim)
	if err != nil {
		return nil, err
	}
	child, err := parent.DelegateTo(ctx, host, toolhost.Delegation{Tools: req.Tools})
	if err != nil {
		release()
		return nil, refuse("%v", err)
	}
	g.mu.Lock()
	g.depthCap[child.ID()] = childCap
	g.mu.Unlock()
	meta := Meta{
		AgentID: child.ID(), Parent: parent.ID(), Root: root, Depth: depth, MaxDepth: childCap,
		Goal: req.Goal, Core: child.CoreID(),
		Requested: Requested{Tools: req.Tools, InputSlots: req.InputSlots, OutputSlots: req.OutputSlots,
			UseBootstrap: req.UseBootstrap, ContextMode: req.ContextMode, NotifyPolicy: req.NotifyPolicy,
			MaxDepth: req.MaxDepth, CoreID: req.CoreID},
		Resolved: Resolved{Input: groups(input), Output: groups(output), UseBootstrap: req.UseBootstrap,
			Steps: lim.MaxSteps, OutputTokens: lim.MaxOutputTokens, WallSeconds: int64(lim.WallTime / time.Second)},
	}
	metaJSON, _ := json.Marshal(meta)
	c := &Child{AgentID: child.ID(), Depth: depth, done: make(chan AgentRunResult, 1)}
	run := func(tctx context.Context, out *runtime.TaskOutput) runtime.TaskOutcome {
		child.MarkRecorded() // with the task, in its one commit
		defer release()
		defer child.End() // its own tasks, MCP connections and allows end with it
		res := g.runChild(tctx, child, req, input, output, lim, &meta)
		res.TaskID = out.ID()
		c.done <- res
		end, _ := json.Marshal(meta)
		return runtime.TaskOutcome{Failed: res.Status != StatusCompleted, ExitReason: res.Status, Result: res.Answer, Agent: end}
	}
	a := parent.Authority()
	task, err := tm.Start(ctx, runtime.TaskSpec{Principal: a.Principal, Session: parent.ID(), Tool: TaskTool, CallID: callID,
		Summary: "child " + child.ID() + ": " + short200(req.Goal), Agent: metaJSON,
		// One commit before the child's work: the task, already running,
		// and the child's session record.
		Running: true, Sessions: []runtime.SessionRecord{child.Record()}}, run)
	if err != nil {
		release()
		child.End()
		return nil, err
	}
	c.TaskID = task.ID
	return c, nil
}

// admit checks depth, fan-out and per-turn bounds in one place and
// counts the child in; release counts it out of running.
func (g *Gate) admit(parent, root, turnID string, depth int, maxDepth *int, lim Limits) (release func(), childCap int, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.initLocked()
	limit, ok := g.depthCap[parent]
	if !ok {
		limit = lim.MaxDepth // a top-level session
	}
	limit = min(limit, lim.MaxDepth, toolhost.MaxDelegationDepth)
	if depth > limit {
		return nil, 0, refuse("depth limit: a child here would be %d deep and the limit is %d; do the work yourself", depth, limit)
	}
	if g.running[root] >= lim.MaxRunning {
		return nil, 0, refuse("fan-out limit: %d children already run in this session tree (the most at once); wait for one with yield_until", lim.MaxRunning)
	}
	if turnID != "" && g.perTurn[turnID] >= lim.MaxPerTurn {
		return nil, 0, refuse("per-turn limit: this turn already started %d children, the most one turn may", lim.MaxPerTurn)
	}
	childCap = limit
	if maxDepth != nil {
		childCap = min(limit, depth+*maxDepth)
	}
	g.running[root]++
	if turnID != "" {
		g.perTurn[turnID]++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			g.running[root]--
			if g.running[root] <= 0 {
				delete(g.running, root)
			}
			g.mu.Unlock()
		})
	}, childCap, nil
}

// runChild runs the child's one turn under its budget.
func (g *Gate) runChild(ctx context.Context, child *toolhost.Session, req Request, input, output []core.Group, lim Limits, meta *Meta) AgentRunResult {
	res := AgentRunResult{AgentID: child.ID()}
	loop, err := g.NewLoop(child)
	if err != nil {
		res.Status, res.Answer = StatusFailed, "the child could not start: "+err.Error()
		meta.Status = res.Status
		return res
	}
	bp := &budgetProvider{Provider: loop.Provider, limit: lim.MaxOutputTokens}
	if g.OnFirstRequest != nil {
		id := child.ID()
		bp.first = func() { g.OnFirstRequest(id) }
	}
	loop.Provider = bp
	loop.MaxSteps = lim.MaxSteps
	loop.System = childPreamble(child, meta) + loop.System
	// The child runs only its selected slots: a source without the
	// session's own stages, and the selection's (nil: base only).
	loop.Session = sourceOnly{child}
	loop.Stages = child.StagesFor(input, output)
	if req.UseBootstrap {
		loop.Instructions = append(loop.Instructions, func(ctx context.Context) (string, error) {
			snap, err := child.Host().BootstrapSnapshot(ctx, child)
			return snap.Text(), err
		})
	}
	defer loop.Close()
	wctx, cancel := context.WithTimeout(ctx, lim.WallTime)
	defer cancel()
	tr, err := loop.Run(wctx, req.Goal, frontEndFor(req, child.ID(), meta.Parent, meta.Depth))
	timedOut := errors.Is(wctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	res.Status = statusOf(tr, timedOut, bp.hit.Load())
	res.Answer, res.Steps, res.Usage = tr.Text, tr.Steps, tr.Usage
	if res.Status != StatusCompleted && err != nil {
		res.Answer = err.Error()
	}
	meta.Status, meta.Steps, meta.Usage = res.Status, res.Steps, res.Usage
	// The tools the child's turn resolved (its catalog is cached by now);
	// kept off the path to its first request.
	if tools, err := childTools(context.WithoutCancel(ctx), child); err == nil {
		meta.Resolved.Tools = tools
	}
	return res
}

// childPreamble is the child's own instruction: what it is, so that it
// answers its goal rather than a conversation it does not have.
func childPreamble(child *toolhost.Session, meta *Meta) string {
	return fmt.Sprintf("[child agent %s, depth %d] You are a child agent started by another agent for one goal. "+
		"The user message is that goal; you see nothing of the other agent's conversation. "+
		"Do the work with your tools and end with your answer, which is returned to the agent that started you.\n\n",
		child.ID(), meta.Depth)
}

func childTools(ctx context.Context, child *toolhost.Session) ([]string, error) {
	cat, err := child.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range cat.Entries() {
		names = append(names, e.Spec.Name)
	}
	return names, nil
}

func groups(gs []core.Group) [][]string {
	out := make([][]string, len(gs))
	for i, g := range gs {
		out[i] = slices.Clone([]string(g))
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func short200(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// sourceOnly is a child session as a turn source, without its core's
// whole pipeline (toolhost.Session.PipelineStages).
type sourceOnly struct{ s *toolhost.Session }

func (s sourceOnly) ID() string { return s.s.ID() }

func (s sourceOnly) NewTurn(ctx context.Context) (*dispatch.Turn, error) { return s.s.NewTurn(ctx) }
