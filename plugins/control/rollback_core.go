package main

import (
	_ "embed"

	"demiurge.dev/sdk"
)

//go:embed rollback_core.md
var rollbackCoreDoc string

// rollbackParams is rollback_core's schema. The plugin only forwards: the
// host reads the call's own arguments and does the rollback.
type rollbackParams struct {
	Revision string `json:"revision,omitempty" jsonschema:"maxLength=200" jsonschema_description:"A revision of live's history (live~N or a commit id); omitted is previous."`
}

func newRollbackCore() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "rollback_core", Description: rollbackCoreDoc, Effect: sdk.EffectControl,
		HostServices: []string{"core_control"},
		Metadata:     sdk.Metadata{Risk: "high", Capability: "tool.call:rollback_core", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
	}, func(ctx *sdk.Context, _ rollbackParams) (*sdk.Result, error) {
		return coreControl(ctx)
	})
}

// coreControl forwards the call to the host's CoreControl and turns its
// answer into the model's result.
func coreControl(ctx *sdk.Context) (*sdk.Result, error) {
	out, err := ctx.CoreControl()
	return sdk.HostAnswer(out, err, "the core repository is not available here"), nil
}
