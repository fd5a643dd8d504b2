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
	StageInput  = "input"
	StageOutput = "output"
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
		changes := make([]Change, len(g))
		errs := make([]error, len(g))
		var wg sync.WaitGroup
		for i, id := range g {
			if id == core.BaseInput || id == core.BaseOutput {
				continue
			}
			slot, ok := slots[id]
			if !ok {
				return res, &FailedError{Slot: id, Err: errors.New("is named in pipelines.yaml but has no slots/" + id + "/slot.yaml")}
			}
			in := SlotInput{Stage: stage, Text: res.Text}
			wg.Go(func() { changes[i], errs[i] = runSlot(ctx, slot, inv, in) })
		}
		wg.Wait()
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

// runSlot runs one slot under its timeout_seconds and parses its change.
func runSlot(ctx context.Context, slot *core.Slot, inv Invoker, in SlotInput) (Change, error) {
	timeout := time.Duration(slot.TimeoutSeconds) * time.Second
	if timeout <= 0 {
		timeout = core.DefaultSlotTimeout * time.Second
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, fmt.Errorf("did not finish within timeout_seconds (%s)", timeout))
	defer cancel()
	out, err := inv.InvokeSlot(ctx, slot, in)
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return Change{}, context.Cause(ctx)
	}
	if err != nil {
		return Change{}, err
	}
	return ParseChange(out)
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
