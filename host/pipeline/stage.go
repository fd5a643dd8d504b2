package pipeline

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"demiurge.dev/host/core"
)

// Stage names, as the slot sees them in its arguments.
const (
	StageBootstrap = "bootstrap"
	StageInput     = "input"
	StageOutput    = "output"
)

// SlotInput is what a slot is given (read-only: it is a copy in the
// slot's arguments): the stage and the message or answer as it stands
// after the slots before it.
type SlotInput struct {
	Stage string `json:"stage"`
	Text  string `json:"text"`
}

// Invoker runs one authored slot and returns what it returned as text, or
// why it failed (raised, timed out, could not start). The host's invoker
// runs the slot through the authored runtime in the sandbox under the
// session's authority; ctx carries the slot's timeout_seconds.
type Invoker interface {
	InvokeSlot(ctx context.Context, slot *core.Slot, in SlotInput) (string, error)
}

// Context is one piece of text a slot added.
type Context struct {
	Slot      string
	Text      string
	Placement string // core.PlaceMessage or core.PlaceSystem
	Keep      bool   // history_policy keep: stored with the message
}

// Result is a stage's outcome: the message or answer after every
// replacement, the contexts in declared order, and the slots whose
// failure was skipped (for the front end).
type Result struct {
	Text     string
	Contexts []Context
	Skipped  []string
}

// RefusedError ends the turn: a slot refused, with its reason.
type RefusedError struct{ Slot, Reason string }

func (e *RefusedError) Error() string {
	return fmt.Sprintf("pipeline slot %s refused: %s", e.Slot, e.Reason)
}

// FailedError ends the turn: a slot with failure_policy fail raised,
// timed out or returned something malformed.
type FailedError struct {
	Slot string
	Err  error
}

func (e *FailedError) Error() string {
	return fmt.Sprintf("pipeline slot %s failed: %v", e.Slot, e.Err)
}
func (e *FailedError) Unwrap() error { return e.Err }

// RunStage runs one input or output stage over text. Groups run one after
// another, each seeing the text the group before it left; the slots of a
// parallel group run at once on the same text and their changes merge in
// declared order (a later replacement wins; the first refusal in declared
// order ends the turn). The host's own slots (base_input, base_output) are
// where the host does its part and change nothing here.
func RunStage(ctx context.Context, stage string, groups []core.Group, slots map[string]*core.Slot, inv Invoker, text string) (Result, error) {
	res := Result{Text: text}
	for _, g := range groups {
		for _, id := range g {
			if !hostSlot(id) && slots[id] == nil {
				return res, &FailedError{Slot: id, Err: errors.New("is named in pipelines.yaml but has no slots/" + id + "/slot.yaml")}
			}
		}
		changes, errs := runGroup(ctx, stage, g, slots, inv, res.Text)
		for i, id := range g {
			if errs[i] != nil {
				if slots[id].FailurePolicy == core.FailSkip {
					res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %v", id, errs[i]))
					continue
				}
				return res, &FailedError{Slot: id, Err: errs[i]}
			}
		}
		for i, id := range g {
			c := changes[i]
			if errs[i] != nil {
				continue
			}
			if c.Refuse != "" {
				return res, &RefusedError{Slot: id, Reason: c.Refuse}
			}
			if c.Replace != nil {
				res.Text = *c.Replace
			}
			if c.Context != "" {
				s := slots[id]
				place := c.Placement
				if place == "" {
					place = s.DefaultPlacement
				}
				res.Contexts = append(res.Contexts, Context{Slot: id, Text: c.Context, Placement: place, Keep: s.HistoryPolicy == core.HistoryKeep})
			}
		}
	}
	return res, nil
}

// runGroup runs the authored slots of g at once on text; the host's own
// ids are left to the caller (their change and error stay zero).
func runGroup(ctx context.Context, stage string, g core.Group, slots map[string]*core.Slot, inv Invoker, text string) ([]Change, []error) {
	changes := make([]Change, len(g))
	errs := make([]error, len(g))
	var wg sync.WaitGroup
	for i, id := range g {
		if hostSlot(id) {
			continue
		}
		in := SlotInput{Stage: stage, Text: text}
		wg.Go(func() { changes[i], errs[i] = runSlot(ctx, slots[id], inv, in) })
	}
	wg.Wait()
	return changes, errs
}

// runSlot runs one slot under its timeout_seconds, parses its change and
// tells the invoker's Recorder, if it has one, how the run ended.
func runSlot(ctx context.Context, slot *core.Slot, inv Invoker, in SlotInput) (Change, error) {
	start := time.Now()
	c, outcome, err := invokeSlot(ctx, slot, inv, in)
	if r, ok := inv.(Recorder); ok {
		r.SlotRan(ctx, SlotRun{Slot: slot.ID, Stage: in.Stage, Outcome: outcome, FailurePolicy: slot.FailurePolicy, Duration: time.Since(start), Err: err})
	}
	return c, err
}

func invokeSlot(ctx context.Context, slot *core.Slot, inv Invoker, in SlotInput) (Change, string, error) {
	timeout := time.Duration(slot.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = core.DefaultSlotTimeout * time.Second
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("did not finish within timeout_seconds (%s)", timeout))
	defer cancel()
	out, err := inv.InvokeSlot(ctx, slot, in)
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Change{}, OutcomeTimeout, context.Cause(ctx)
	}
	if err != nil {
		return Change{}, OutcomeError, err
	}
	c, err := ParseChange(out)
	if err == nil && in.Stage == StageBootstrap {
		err = bootstrapChange(c)
	}
	switch {
	case err != nil:
		return Change{}, OutcomeMalformed, err
	case c.Refuse != "":
		return c, OutcomeRefused, nil
	}
	return c, OutcomeOK, nil
}

// bootstrapChange refuses what a bootstrap slot cannot mean: there is no
// message to replace, and its part is always system text.
func bootstrapChange(c Change) error {
	switch {
	case c.Replace != nil:
		return errors.New(`returned "replace" in the bootstrap stage; a bootstrap slot returns {"context": text} (its part of the snapshot) or {"refuse": why}`)
	case c.Placement != "":
		return errors.New(`returned "placement" in the bootstrap stage; the snapshot is system text`)
	}
	return nil
}

// How a slot run ended, in its audit event.
const (
	OutcomeOK        = "ok"        // returned a change (or none)
	OutcomeRefused   = "refused"   // returned a refusal
	OutcomeError     = "error"     // raised, or could not start
	OutcomeTimeout   = "timeout"   // passed timeout_seconds
	OutcomeMalformed = "malformed" // returned something that is not a change, or too much
)

// SlotRun is one authored slot run as it ended.
type SlotRun struct {
	Slot, Stage, Outcome string
	// FailurePolicy says what a failed outcome did: fail ended the turn,
	// skip dropped the change.
	FailurePolicy string
	Duration      time.Duration
	Err           error
}

// Recorder is an Invoker that is told of every slot run it made when the
// run ends (the host's writes an audit event per run).
type Recorder interface {
	SlotRan(ctx context.Context, r SlotRun)
}

// Stages runs a core's input and output stages for one session; the
// turn loop calls them (host/turn). Slots run with the session's
// authority.
type Stages interface {
	Input(ctx context.Context, message string) (Result, error)
	Output(ctx context.Context, answer string) (Result, error)
	// HasOutput says the answer must be held back until the output stage
	// ran: it is not streamed to the front end.
	HasOutput() bool
}
