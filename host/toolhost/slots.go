package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/pipeline"
)

// SlotInvoker runs this core's pipeline slots for turn: through the
// authored runtime, in the sandbox, under the turn's authority
// (dispatch.Turn.RunSlot). The singular capability of slot.yaml is the
// gate checked before the slot's code is started.
func (h *Host) SlotInvoker(turn *dispatch.Turn) pipeline.Invoker {
	return slotInvoker{turn: turn, adapter: dispatch.PluginAdapter{Manager: h.Plugins, Toolset: AuthoredToolset}}
}

type slotInvoker struct {
	turn    *dispatch.Turn
	adapter dispatch.Adapter
}

func (s slotInvoker) InvokeSlot(ctx context.Context, slot *core.Slot, in pipeline.SlotInput) (string, error) {
	if c := slot.Capability; c != "" && !s.turn.Authority.Capabilities.Has(c) {
		return "", fmt.Errorf("its capability %s is not granted to this session", c)
	}
	args, err := json.Marshal(in)
	if err != nil {
		return "", err
	}
	res, err := s.turn.RunSlot(ctx, s.adapter, dispatch.SlotCall{ID: slot.ID, Dir: slot.Dir, Capabilities: slot.Capabilities, Args: args})
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
