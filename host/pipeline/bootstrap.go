package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"demiurge.dev/host/core"
)

// ErrAuthoredSlots says a bootstrap stage names authored slots and no
// invoker was given to run them (Bootstrap, the built-ins-only entry).
var ErrAuthoredSlots = errors.New("authored bootstrap slots need the authored runtime to run (pipeline.RunBootstrap with an Invoker)")

// CheckRunnable refuses a core whose pipelines name a slot that has no
// slots/<id>/slot.yaml (the loader already refuses that; this guards a
// core assembled in code), so that a pipeline never runs with a step
// silently missing. Every other id runs: the host's own in the host,
// authored ones through the authored runtime.
func CheckRunnable(c *core.Core) error {
	var missing []string
	for _, stage := range [][]core.Group{c.Pipelines.Bootstrap, c.Pipelines.Input, c.Pipelines.Output} {
		for _, id := range c.Pipelines.Slots(stage) {
			if !hostSlot(id) && c.Slots[id] == nil {
				missing = append(missing, id)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%s: names slots the core does not have (no slots/<id>/slot.yaml): %s", c.Pipelines.File, strings.Join(missing, ", "))
}

// hostSlot says id is one of the host's own slots, run in the host.
func hostSlot(id string) bool {
	return id == core.BaseInput || id == core.BaseOutput || id == core.ProjectInstructions
}

// HasAuthored says stage names an authored slot (one the authored
// runtime runs).
func HasAuthored(stage []core.Group) bool {
	for _, g := range stage {
		for _, id := range g {
			if !hostSlot(id) {
				return true
			}
		}
	}
	return false
}

// Part is what one bootstrap slot contributed.
type Part struct {
	Slot string `json:"slot"`
	Text string `json:"text"`
}

// Snapshot is a session's bootstrap snapshot: made once, when the
// session's first turn starts, stored with the session and put into the
// system text of every provider request of the session.
type Snapshot struct {
	Parts []Part `json:"parts"`
	// Notes are what the slots left out and why, and the authored slots
	// whose failure was skipped (for the operator).
	Notes []string `json:"notes,omitempty"`
	// CoreRevision is the core revision the snapshot was made under.
	CoreRevision string `json:"core_revision"`
}

// Text is the snapshot as system text.
func (s Snapshot) Text() string {
	var parts []string
	for _, p := range s.Parts {
		if t := strings.TrimSpace(p.Text); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Bootstrap runs c's bootstrap stage when it names the host's own slots
// only; a stage naming an authored slot fails with ErrAuthoredSlots
// (RunBootstrap runs those).
func Bootstrap(c *core.Core, ws Workspace, cwd string) (Snapshot, error) {
	return RunBootstrap(context.Background(), c, ws, cwd, nil)
}

// RunBootstrap runs c's bootstrap stage for a session whose workspace is
// ws and working directory cwd: project_instructions in the host, every
// authored slot through inv (the authored runtime, under the session's
// authority). Groups run one after another; a parallel group's slots run
// at once and their parts join the snapshot in declared order. An
// authored bootstrap slot returns {"context": text} (its part), nothing,
// or {"refuse": why}, which ends the turn; "replace" and "placement" are
// malformed here (there is no message to replace; the snapshot is system
// text). failure_policy and timeout_seconds apply as in the other stages:
// a skipped failure is a note of the snapshot.
func RunBootstrap(ctx context.Context, c *core.Core, ws Workspace, cwd string, inv Invoker) (Snapshot, error) {
	if err := CheckRunnable(c); err != nil {
		return Snapshot{}, err
	}
	if inv == nil && HasAuthored(c.Pipelines.Bootstrap) {
		return Snapshot{}, fmt.Errorf("%s: %w", c.Pipelines.File, ErrAuthoredSlots)
	}
	snap := Snapshot{Parts: []Part{}, CoreRevision: c.Revision}
	for _, g := range c.Pipelines.Bootstrap {
		changes, errs := runGroup(ctx, StageBootstrap, g, c.Slots, inv, "")
		for i, id := range g {
			switch {
			case hostSlot(id) || errs[i] == nil:
			case c.Slots[id].FailurePolicy == core.FailSkip:
				snap.Notes = append(snap.Notes, fmt.Sprintf("bootstrap slot %s skipped (failure_policy skip): %v", id, errs[i]))
			default:
				return Snapshot{}, &FailedError{Slot: id, Err: errs[i]}
			}
		}
		for i, id := range g {
			if !hostSlot(id) && errs[i] == nil && changes[i].Refuse != "" {
				return Snapshot{}, &RefusedError{Slot: id, Reason: changes[i].Refuse}
			}
		}
		for i, id := range g {
			switch {
			case id == core.ProjectInstructions:
				text, notes, err := ProjectInstructions(ws, cwd)
				if err != nil {
					return Snapshot{}, fmt.Errorf("bootstrap slot %s: %w", id, err)
				}
				snap.Parts = append(snap.Parts, Part{Slot: id, Text: text})
				snap.Notes = append(snap.Notes, notes...)
			case !hostSlot(id) && errs[i] == nil && changes[i].Context != "":
				snap.Parts = append(snap.Parts, Part{Slot: id, Text: changes[i].Context})
			}
		}
	}
	return snap, nil
}
