package toolhost

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/pipeline"
)

// BootstrapInstruction is a turn-loop instruction hook: the current
// session's bootstrap snapshot, made on its first turn and stored with
// it, as system text. A delegated child gets none (use_bootstrap
// defaults to false in the specification).
func (h *Host) BootstrapInstruction() func(context.Context) (string, error) {
	return h.BootstrapInstructionFor(nil)
}

// BootstrapInstructionFor is BootstrapInstruction for the session s of a
// front end (nil: the host's current session, whichever it is then).
func (h *Host) BootstrapInstructionFor(fixed *Session) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) {
		s := fixed
		if s == nil {
			s = h.Session()
		}
		if s.Parent() != "" {
			return "", nil
		}
		snap, err := h.BootstrapSnapshot(ctx, s)
		if err != nil {
			return "", err
		}
		return snap.Text(), nil
	}
}

// BootstrapSnapshot returns s's stored snapshot, making and storing it
// first when s has none. A resumed session keeps the snapshot it started
// with, even when AGENTS.md changed since. A bootstrap stage that fails
// (an authored slot under failure_policy fail, or one that refuses)
// stores nothing, so the session's next turn runs it again: a session
// never goes on without its snapshot. Two first turns at once may both
// run the stage; the first stored snapshot is the session's.
func (h *Host) BootstrapSnapshot(ctx context.Context, s *Session) (pipeline.Snapshot, error) {
	store, err := h.Store()
	if err != nil {
		return pipeline.Snapshot{}, err
	}
	a := s.Authority()
	data, ok, err := store.Bootstrap(a.Principal, a.Session)
	if err != nil {
		return pipeline.Snapshot{}, err
	}
	if !ok {
		cwd, err := os.Getwd()
		if err != nil {
			cwd = h.Workspace.Root
		}
		var inv pipeline.Invoker
		if pipeline.HasAuthored(h.Core.Pipelines.Bootstrap) {
			// Authored bootstrap slots run under the session's authority,
			// as a turn's tool calls do.
			dt, err := s.NewTurn(ctx)
			if err != nil {
				return pipeline.Snapshot{}, err
			}
			dispatch.Bind(ctx, dt)
			inv = h.SlotInvoker(dt)
		}
		snap, err := pipeline.RunBootstrap(ctx, h.Core, pipeline.Workspace{Root: h.Workspace.Root, Hidden: h.Workspace.InState}, cwd, inv)
		if err != nil {
			return pipeline.Snapshot{}, err
		}
		if data, err = json.Marshal(snap); err != nil {
			return pipeline.Snapshot{}, err
		}
		if data, err = store.PutBootstrapOnce(ctx, a.Principal, a.Session, data); err != nil {
			return pipeline.Snapshot{}, err
		}
	}
	var snap pipeline.Snapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return pipeline.Snapshot{}, fmt.Errorf("the bootstrap snapshot of session %s: %w", a.Session, err)
	}
	return snap, nil
}
