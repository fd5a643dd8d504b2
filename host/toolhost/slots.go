package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/pipeline"
	"demiurge.dev/host/runtime"
)

// SlotInvoker runs this core's pipeline slots for turn: through the
// authored runtime, in the sandbox, under the turn's authority
// (dispatch.Turn.RunSlot). The singular capability of slot.yaml is the
// gate checked before the slot's code is started.
func (h *Host) SlotInvoker(turn *dispatch.Turn) pipeline.Invoker {
	return slotInvoker{h: h, turn: turn, adapter: dispatch.PluginAdapter{Manager: h.Plugins, Toolset: AuthoredToolset}}
}

type slotInvoker struct {
	h       *Host
	turn    *dispatch.Turn
	adapter dispatch.Adapter
}

// EventKindSlotRun is the audit event of one authored slot run.
const EventKindSlotRun = "pipeline.slot"

// SlotRan writes the run's audit event. It is submitted, not appended:
// it rides with the turn's next commit (the user message, the step, the
// answer), so a slot costs no fsync of its own; a crash within
// runtime's submit delay (100 ms) may lose it. A tool call a slot makes
// is audited by dispatch like any call, durably before its result.
func (s slotInvoker) SlotRan(ctx context.Context, r pipeline.SlotRun) {
	store, err := s.h.Store()
	if err != nil {
		return
	}
	d := slotRunData{Slot: r.Slot, Stage: r.Stage, Outcome: r.Outcome, FailurePolicy: r.FailurePolicy,
		DurationMs: float64(r.Duration.Microseconds()) / 1000, Turn: s.turn.ID, CoreRevision: s.turn.Authority.CoreRevision}
	if r.Err != nil {
		d.Error = r.Err.Error()
		if len(d.Error) > 512 {
			d.Error = d.Error[:512] + "…"
		}
	}
	body, err := json.Marshal(d)
	if err != nil {
		return
	}
	_ = store.Submit(context.WithoutCancel(ctx), runtime.Event{Kind: EventKindSlotRun, Session: s.turn.Authority.Session, Tool: dispatch.SlotPrefix + r.Slot, Data: body}, nil)
}

type slotRunData struct {
	Slot          string  `json:"slot"`
	Stage         string  `json:"stage"`
	Outcome       string  `json:"outcome"`
	FailurePolicy string  `json:"failure_policy"`
	DurationMs    float64 `json:"duration_ms"`
	Error         string  `json:"error,omitempty"`
	Turn          string  `json:"turn"`
	CoreRevision  string  `json:"core_revision"`
}

func (s slotInvoker) InvokeSlot(ctx context.Context, slot *core.Slot, in pipeline.SlotInput) (string, error) {
	grants := s.h.slotGrants(slot)
	if c := slot.Capability; c != "" && !s.turn.Authority.Capabilities.Has(c) && !catalog.HostGranted(grants, c) {
		return "", fmt.Errorf("its capability %s is not granted to this session", c)
	}
	args, err := json.Marshal(in)
	if err != nil {
		return "", err
	}
	res, err := s.turn.RunSlot(ctx, s.adapter, dispatch.SlotCall{ID: slot.ID, Dir: slot.Dir, Capabilities: slot.Capabilities, HostGrants: grants, Args: args})
	switch {
	case err != nil:
		return "", err
	case res.GetIsError():
		return "", errors.New(res.GetContent())
	case len(res.GetStructured()) > 0:
		return string(res.GetStructured()), nil
	}
	return res.GetContent(), nil
}
