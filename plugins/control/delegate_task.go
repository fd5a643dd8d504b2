package main

import (
	_ "embed"

	"demiurge.dev/sdk"
)

//go:embed delegate_task.md
var delegateTaskDoc string

// delegateParams is delegate_task's schema for the model. The plugin only
// forwards: the host reads the call's own arguments, parses them strictly
// and decides everything in its spawn gate.
type delegateParams struct {
	Goal         string  `json:"goal" jsonschema:"minLength=1,maxLength=20000" jsonschema_description:"What the child agent should do; its whole prompt."`
	CoreID       *string `json:"core_id,omitempty" jsonschema_description:"The core the child runs; omitted is this session's core."`
	ContextMode  string  `json:"context_mode,omitempty" jsonschema:"enum=isolated" jsonschema_description:"isolated (default): the child sees only the goal."`
	NotifyPolicy string  `json:"notify_policy,omitempty" jsonschema:"enum=return_to_parent,enum=silent,enum=wait" jsonschema_description:"return_to_parent (default), silent or wait (foreground)."`
	MaxDepth     *int    `json:"max_depth,omitempty" jsonschema:"minimum=0" jsonschema_description:"Lowers how deep the child's own children may go."`
	Tools        any     `json:"tools,omitempty" jsonschema_description:"\"all\" (default), \"none\", or a list of tool names you have."`
	InputSlots   any     `json:"input_slots,omitempty" jsonschema_description:"null/[] (base only), \"all\", or a list of slot ids."`
	OutputSlots  any     `json:"output_slots,omitempty" jsonschema_description:"null/[] (base only), \"all\", or a list of slot ids."`
	UseBootstrap bool    `json:"use_bootstrap,omitempty" jsonschema_description:"Run the child core's bootstrap pipeline (default false)."`
}

func newDelegateTask() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "delegate_task", Description: delegateTaskDoc, Effect: sdk.EffectControl,
		HostServices: []string{"delegate"},
		Metadata:     sdk.Metadata{Risk: "low", Capability: "tool.call:delegate_task", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
	}, func(ctx *sdk.Context, _ delegateParams) (*sdk.Result, error) {
		out, err := ctx.DelegateTask()
		res := sdk.HostAnswer(out, err, "child agents are not available here")
		// A child that ended otherwise than completed is an error result.
		if payload, ok := res.Structured.(map[string]any); ok {
			if st, _ := payload["status"].(string); st != "" && st != "completed" && st != "queued" && st != "running" {
				res.IsError = true
			}
		}
		return res, nil
	})
}
