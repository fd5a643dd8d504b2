package turn

import (
	"encoding/json"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/redact"
	"demiurge.dev/shared/turnevent"
)

// EventSchemaVersion is the version of the `run --json` event format
// (turnevent.EventSchemaVersion).
const EventSchemaVersion = turnevent.EventSchemaVersion

const (
	EventInit   = turnevent.EventInit
	EventRetry  = turnevent.EventRetry
	EventResult = turnevent.EventResult
)

// argsCut bounds each string of a tool_call event's args.
const argsCut = 300

// EventDetail holds the fields added in schema 2 (turnevent.EventDetail).
type EventDetail = turnevent.EventDetail

// resultDetail is what a tool_result event says of an outcome beyond its
// card: the call's status and a command's exit code, and whether it
// failed (the call, or the command it ran).
func resultDetail(o dispatch.Outcome) (EventDetail, bool) {
	d := EventDetail{CallStatus: string(o.Status), Edit: o.Edit}
	failed := !o.OK() || o.Views.Card.IsError
	if code, ok := o.Views.ExitCode(); ok { // not the whole result: the exit code alone
		d.ExitCode = &code
		failed = failed || code != 0
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
