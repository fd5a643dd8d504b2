package turn

import (
	"encoding/json"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/redact"
)

// EventSchemaVersion is the version of the `run --json` event format
// (docs/json-events.md): 2 added init, retry and result, and the
// structured fields of tool_call and tool_result. Fields are only added
// within a version; a removal or a change of meaning raises it.
const EventSchemaVersion = 2

const (
	// EventInit opens a run: the session, the model, the tools, the
	// sandbox mode and the version. The front end sends it (the loop
	// knows neither the version nor the sandbox report).
	EventInit EventKind = "init"
	// EventRetry: a model step's try failed and another follows.
	EventRetry EventKind = "retry"
	// EventResult closes a run: its status, steps, duration and usage.
	EventResult EventKind = "result"
)

// argsCut bounds each string of a tool_call event's args.
const argsCut = 300

// EventDetail holds the fields added in schema 2; Event embeds it, so
// they appear flat in the JSON.
type EventDetail struct {
	// SchemaVersion (init): EventSchemaVersion.
	SchemaVersion int `json:"schema_version,omitempty"`
	// Args (tool_call): the arguments, redacted as the card is (secret
	// fields and values replaced), each string cut at 300 bytes.
	Args map[string]any `json:"args,omitempty"`
	// CallStatus (tool_result): dispatch's status of the call: ok,
	// denied, blocked, tool_error, invalid_arguments, ...
	CallStatus string `json:"call_status,omitempty"`
	// ExitCode (tool_result): a command's exit code, when the call ran
	// one; non-zero makes is_error true.
	ExitCode *int `json:"exit_code,omitempty"`
	// Try, Of and WaitMS (retry): the try that follows, of at most Of,
	// after WaitMS; Text says why the last one failed.
	Try    int   `json:"try,omitempty"`
	Of     int   `json:"of,omitempty"`
	WaitMS int64 `json:"wait_ms,omitempty"`
	// Model, Tools, Sandbox and Version (init).
	Model   string   `json:"model,omitempty"`
	Tools   []string `json:"tools,omitempty"`
	Sandbox string   `json:"sandbox,omitempty"`
	Version string   `json:"version,omitempty"`
	// Steps and DurationMS (result); Usage is the run's total there.
	Steps      int   `json:"steps,omitempty"`
	DurationMS int64 `json:"duration_ms,omitempty"`
	// Edit (tool_result): what a file write that ran (write_file, patch)
	// did to its workspace file: the whole text before and after, redacted,
	// each within approval.MaxEditText (none beyond, or outside the
	// workspace, or for a credential-like path). Args are cut at 300
	// bytes; this is the change in full, for a front end's diff.
	Edit *approval.FileEdit `json:"edit,omitempty"`
}

// resultDetail is what a tool_result event says of an outcome beyond its
// card: the call's status and a command's exit code, and whether it
// failed (the call, or the command it ran).
func resultDetail(o dispatch.Outcome) (EventDetail, bool) {
	d := EventDetail{CallStatus: string(o.Status), Edit: o.Edit}
	failed := !o.OK() || o.Views.Card.IsError
	if s, ok := o.Views.Record["structured"].(map[string]any); ok {
		if code, ok := redact.ExitCode(s); ok {
			d.ExitCode = &code
			failed = failed || code != 0
		}
	}
	return d, failed
}

// callDetail is a tool_call event's structured arguments; none when they
// are not one JSON object (the card says so).
func callDetail(args []byte) EventDetail {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil || m == nil {
		return EventDetail{}
	}
	return EventDetail{Args: redact.Args(m, argsCut)}
}

// announce shows the init event (Loop.Announce) with the model and the
// tools the first step offers it.
func (t *turnRun) announce(dt *dispatch.Turn) {
	if t.loop.Announce == nil {
		return
	}
	d := *t.loop.Announce
	d.SchemaVersion = EventSchemaVersion
	if t.loop.Provider != nil {
		d.Model = t.loop.Provider.Name()
	}
	d.Tools = []string{}
	for _, def := range toolDefs(dt.Catalog) {
		d.Tools = append(d.Tools, def.Name)
	}
	t.show(Event{Type: EventInit, EventDetail: d})
}
