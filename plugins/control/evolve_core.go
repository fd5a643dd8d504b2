package main

import (
	_ "embed"

	"demiurge.dev/sdk"
)

//go:embed evolve_core.md
var evolveCoreDoc string

// evolveParams is evolve_core's schema. The plugin only forwards: the host
// reads the call's own arguments, which dispatch approved per action.
type evolveParams struct {
	Action     string `json:"action" jsonschema:"enum=start,enum=review,enum=promote,enum=discard" jsonschema_description:"start (goal): a new run whose evolver edits a work tree of the live core. review (run_id): run the host's gates and record the run. promote (run_id, mcp_review when the review gave one): make the reviewed run live. discard (run_id): remove the run."`
	Goal       string `json:"goal,omitempty" jsonschema:"maxLength=4000" jsonschema_description:"start: what the evolver should change in the core."`
	RunID      string `json:"run_id,omitempty" jsonschema:"maxLength=64" jsonschema_description:"review, promote, discard: the run's id, as start returned it."`
	MCPReview  string `json:"mcp_review,omitempty" jsonschema:"maxLength=100" jsonschema_description:"promote: the review's mcp-review:<sha256> token, verbatim, when the run changes MCP declarations."`
	Background bool   `json:"background,omitempty" jsonschema_description:"start: run the evolver as a background task and return its task id at once."`
}

func newEvolveCore() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "evolve_core", Description: evolveCoreDoc, Effect: sdk.EffectControl,
		HostServices: []string{"core_control"},
		Metadata:     sdk.Metadata{Risk: "high", Capability: "tool.call:evolve_core", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
	}, func(ctx *sdk.Context, _ evolveParams) (*sdk.Result, error) {
		return coreControl(ctx)
	})
}
