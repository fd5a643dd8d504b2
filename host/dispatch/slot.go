package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"demiurge.dev/catalog"
	"demiurge.dev/host/plugins"
	"demiurge.dev/shared/sandbox"
	"demiurge.dev/shared/toolsetv1"
)

// SlotPrefix names a pipeline slot to the authored runtime: "slot:<id>".
const SlotPrefix = "slot:"

// SlotCall is one run of a pipeline slot: authored code the model never
// calls, so it has no catalog entry, no schema and no approval card. It
// runs as an authored tool does: in the authored runtime, under the OS
// sandbox the session's mode and the slot's declared capabilities allow,
// and an effect capability it asks for is granted only when declared and
// held by the session or given to the slot by the operator's path grants.
type SlotCall struct {
	ID string
	// Dir is the slot's directory (slots/<id>), readable by its worker.
	Dir          string
	Capabilities []string
	// HostGrants are the operator's path-scoped grants to this slot.
	HostGrants []catalog.HostGrant
	Args       json.RawMessage
}

// RunSlot runs s through adapter (the authored runtime) under this turn's
// authority. The caller's ctx carries the slot's timeout_seconds.
func (t *Turn) RunSlot(ctx context.Context, adapter Adapter, s SlotCall) (*toolsetv1.ToolResult, error) {
	if adapter == nil {
		return nil, errors.New("no authored runtime is loaded to run pipeline slots")
	}
	mode, err := t.authoredModeFor(s.Capabilities)
	if err != nil {
		return nil, err
	}
	pol := sandbox.Policy{Mode: sandbox.Off}
	if mode != sandbox.Off {
		if miss := t.Sandbox.Unenforceable(mode); miss != "" {
			return nil, fmt.Errorf("slots run only under an enforced OS sandbox (mode %s), and it cannot be enforced here: the kernel lacks %s", mode, miss)
		}
		if pol, err = t.authoredPolicyFor(s.Dir, mode); err != nil {
			return nil, err
		}
	}
	enc, err := pol.Encode()
	if err != nil {
		return nil, err
	}
	inv := Invocation{
		ID: newInvocationID(), Tool: SlotPrefix + s.ID, Args: s.Args,
		Workspace: t.Workspace.Root, ArtifactRoot: t.ArtifactRoot,
		Session: t.Authority.Session, Turn: t.ID, Timezone: t.Timezone,
		SandboxPolicy: enc,
		Hooks: plugins.Hooks{
			Capability: func(_ context.Context, c string, _ bool) (bool, string) {
				switch {
				case !slices.Contains(s.Capabilities, c):
					return false, fmt.Sprintf("slot %s did not declare %s in its capabilities", s.ID, c)
				case !t.Authority.Capabilities.Has(c) && !catalog.HostGranted(s.HostGrants, c):
					return false, fmt.Sprintf("%s is not granted to this session", c)
				}
				return true, ""
			},
			Deliver: func(context.Context, string) error {
				return errors.New("a pipeline slot returns its change; it delivers no output")
			},
			CallTool: t.slotToolCall(s.ID),
		},
	}
	inv.Hooks.Agents = t.agentHooks("slot "+s.ID, inv.Tool+":"+inv.ID, s.Capabilities, nil)
	return adapter.Invoke(ctx, inv)
}

// slotToolCall runs a slot's ctx.tools.call through this turn's whole
// call path, exactly as a call of the model: the catalog (a tool the
// model may not call, the slot may not either), schema, capability,
// approval (the turn's approver asks, as for the turn's own calls; an
// agent.yaml rule never approves what needs the operator), the sandbox,
// the turn's call cap and the audit, whose call id names the slot. The
// slot gets the model's view of the result.
func (t *Turn) slotToolCall(slot string) func(ctx context.Context, tool string, args []byte) (*toolsetv1.CallToolResponse, error) {
	return func(ctx context.Context, tool string, args []byte) (*toolsetv1.CallToolResponse, error) {
		if t.Catalog == nil {
			return nil, errors.New("this turn has no catalog to call tools from")
		}
		out := t.Call(ctx, ToolCall{ID: SlotPrefix + slot + ":" + newInvocationID(), Name: tool, Args: args})
		return &toolsetv1.CallToolResponse{Content: out.Views.Model.String(), IsError: !out.OK(), Status: string(out.Status)}, nil
	}
}
