package toolhost

import (
	"context"
	"time"

	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/pipeline"
)

// SpawnGate starts a child agent of parent for a delegate_task call. The
// host's one spawn gate (host/agents) is the real one; it runs children in
// whichever process runs parent's turn.
type SpawnGate func(ctx context.Context, parent *Session, call dispatch.DelegateCall) (string, error)

// SetSpawnGate installs the gate every later turn of every session of h
// hands its delegate_task calls to; without one delegate_task is refused.
func (h *Host) SetSpawnGate(g SpawnGate) {
	h.spawnMu.Lock()
	h.spawnGate = g
	h.spawnMu.Unlock()
}

func (h *Host) spawner(s *Session) dispatch.Delegator {
	hh := h.hooksHost()
	hh.spawnMu.Lock()
	g := hh.spawnGate
	hh.spawnMu.Unlock()
	if g == nil {
		return nil
	}
	return func(ctx context.Context, call dispatch.DelegateCall) (string, error) { return g(ctx, s, call) }
}

// AgentTasks answers authored code's AgentSpawnHandle (status, wait,
// cancel) for a task of parent's session; the spawn gate sets it.
type AgentTasks func(ctx context.Context, parent *Session, op, taskID string, timeout time.Duration) (string, error)

// SetAgentTasks installs what answers ctx.agents handles; without it
// ctx.agents is refused.
func (h *Host) SetAgentTasks(a AgentTasks) {
	h.spawnMu.Lock()
	h.agentTasks = a
	h.spawnMu.Unlock()
}

func (h *Host) agentTasker(s *Session) dispatch.AgentTasker {
	hh := h.hooksHost()
	hh.spawnMu.Lock()
	a := hh.agentTasks
	hh.spawnMu.Unlock()
	if a == nil {
		return nil
	}
	return func(ctx context.Context, op, taskID string, timeout time.Duration) (string, error) {
		return a(ctx, s, op, taskID, timeout)
	}
}

// hooksHost is the host whose spawn gate, agent tasks and scheduler h's
// sessions use: a core host's base (corehost.go), so that one gate counts
// every child of a root session, whichever core each runs.
func (h *Host) hooksHost() *Host {
	if h.base != nil {
		return h.base
	}
	return h
}

// Depth is how many delegations deep s is; a top-level session is 0.
func (s *Session) Depth() int { return s.depth() }

// Root is the top-level session s descends from (s itself at depth 0).
func (s *Session) Root() *Session {
	r := s
	for r.parent != nil {
		r = r.parent
	}
	return r
}

// Pipelines are the active pipelines of s's core.
func (s *Session) Pipelines() core.Pipelines { return s.h.Core.Pipelines }

// CoreID is the id of the core s runs.
func (s *Session) CoreID() string { return s.h.coreID() }

// StagesFor runs the given input and output groups (a selection of the
// core's own, see host/agents) with s's authority; nil when they name no
// authored slot, so only base_input and base_output run.
func (s *Session) StagesFor(input, output []core.Group) pipeline.Stages {
	in, out := pipeline.HasAuthored(input), pipeline.HasAuthored(output)
	if !in && !out {
		return nil
	}
	return selectedStages{s: s, input: input, output: output, hasOut: out}
}

type selectedStages struct {
	s             *Session
	input, output []core.Group
	hasOut        bool
}

func (st selectedStages) Input(ctx context.Context, message string) (pipeline.Result, error) {
	return sessionStages{s: st.s}.run(ctx, pipeline.StageInput, st.input, message)
}

func (st selectedStages) Output(ctx context.Context, answer string) (pipeline.Result, error) {
	return sessionStages{s: st.s}.run(ctx, pipeline.StageOutput, st.output, answer)
}

func (st selectedStages) HasOutput() bool { return st.hasOut }

// coreID is the id of h's core in the core repository; "" for a plain
// core directory (--core), which has no id.
func (h *Host) coreID() string {
	if h.Core == nil || h.Core.Version == nil {
		return ""
	}
	return h.Core.Version.ID
}
