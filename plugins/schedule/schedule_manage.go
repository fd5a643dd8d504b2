package main

import (
	_ "embed"

	"demiurge.dev/sdk"
)

//go:embed schedule_manage.md
var scheduleManageDoc string

type budgetParams struct {
	Steps        int   `json:"steps,omitempty" jsonschema:"minimum=0,maximum=200" jsonschema_description:"Model steps per run (default 20)."`
	OutputTokens int   `json:"output_tokens,omitempty" jsonschema:"minimum=0,maximum=400000" jsonschema_description:"Output tokens per run (default 20000)."`
	WallSeconds  int64 `json:"wall_seconds,omitempty" jsonschema:"minimum=0,maximum=21600" jsonschema_description:"Wall time per run in seconds (default 600)."`
}

type leaseParams struct {
	Tools         []string `json:"tools" jsonschema_description:"The tools runs may call with no one present (schedule_manage never)."`
	Paths         []string `json:"paths,omitempty" jsonschema_description:"Workspace-relative paths runs may touch; dir/** for a tree."`
	Commands      []string `json:"commands,omitempty" jsonschema_description:"Exact command lines runs may execute; a trailing ' *' allows further plain arguments."`
	ExpiresInDays int64    `json:"expires_in_days,omitempty" jsonschema:"minimum=1,maximum=90" jsonschema_description:"How long the lease lasts once approved (default 30)."`
}

// manageParams is schedule_manage's schema for the model. The plugin only
// forwards: the host reads the call's own arguments, parses them strictly
// and decides everything.
type manageParams struct {
	Action       string        `json:"action" jsonschema:"enum=create,enum=list,enum=show,enum=update,enum=pause,enum=resume,enum=delete,enum=run_now" jsonschema_description:"What to do."`
	ID           string        `json:"id,omitempty" jsonschema:"maxLength=64" jsonschema_description:"The schedule (sch_...), for every action but create and list."`
	Prompt       string        `json:"prompt,omitempty" jsonschema:"maxLength=20000" jsonschema_description:"The instruction each run starts with (create, update)."`
	CoreID       string        `json:"core_id,omitempty" jsonschema_description:"The core the runs use (default this host's)."`
	Cron         string        `json:"cron,omitempty" jsonschema_description:"Five-field cron expression, e.g. '0 7 * * 1-5'."`
	Zone         string        `json:"zone,omitempty" jsonschema_description:"IANA time zone of cron, e.g. Europe/Berlin (default UTC)."`
	EverySeconds int64         `json:"every_seconds,omitempty" jsonschema:"minimum=1" jsonschema_description:"An interval instead of cron."`
	At           string        `json:"at,omitempty" jsonschema_description:"One run at this RFC 3339 time instead of cron."`
	Tools        []string      `json:"tools,omitempty" jsonschema_description:"Narrows the runs' tools to these (within the lease)."`
	Budget       *budgetParams `json:"budget,omitempty"`
	ResultFile   string        `json:"result_file,omitempty" jsonschema_description:"Also write each run's answer to this workspace file (it must be within the lease's paths)."`
	Missed       string        `json:"missed,omitempty" jsonschema:"enum=catch_up,enum=skip" jsonschema_description:"Runs missed beyond the grace window: one catch-up run, or skip (default)."`
	GraceSeconds int64         `json:"grace_seconds,omitempty" jsonschema:"minimum=1" jsonschema_description:"How late a run may still start as itself (default 300)."`
	Overlap      string        `json:"overlap,omitempty" jsonschema:"enum=skip,enum=queue,enum=cancel" jsonschema_description:"A run due while the last still runs: skip (default), queue one, or cancel the running one."`
	Lease        *leaseParams  `json:"lease,omitempty" jsonschema_description:"What runs may do unattended; the operator must approve it before any run starts."`
}

func newScheduleManage() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "schedule_manage", Description: scheduleManageDoc, Effect: sdk.EffectControl,
		HostServices: []string{"schedule"},
		Metadata:     sdk.Metadata{Risk: "medium", Capability: "schedule.manage", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
	}, func(ctx *sdk.Context, _ manageParams) (*sdk.Result, error) {
		out, err := ctx.ScheduleManage()
		return sdk.HostAnswer(out, err, ""), nil
	})
}
