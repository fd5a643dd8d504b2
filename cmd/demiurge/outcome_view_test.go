package main

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/hostd"
	"demiurge.dev/host/redact"
)

// The small front end reads the host's outcome into frontview.Outcome,
// the full CLI converts its dispatch.Outcome with outcomeView: both must
// carry every field the host sends (the model view as the one text the
// model reads, an envelope joined to its content), or the two print differently.
func TestOutcomeViewCarriesTheWire(t *testing.T) {
	out := dispatch.Outcome{CallID: "c", Tool: "t", Status: dispatch.StatusDenied, EventSeq: 7, Duration: 1500 * time.Millisecond,
		Views:    redact.Views{Model: redact.ModelView{Head: "<untrusted-data boundary=\"B\">\n", Body: "m", Tail: "\n</untrusted-data boundary=\"B\">"}, Card: redact.Card{Title: "T", Args: "A", Body: "B", IsError: true}},
		Approval: approval.Outcome{Allowed: true, Via: "v", Reason: "r", Scope: "s"}}
	wire, err := json.Marshal(hostd.WireOutcome{CallID: out.CallID, Tool: out.Tool, Status: out.Status, Model: out.Views.Model.String(),
		Card: out.Views.Card, Approval: out.Approval, EventSeq: out.EventSeq, DurationMs: out.Duration.Milliseconds()})
	if err != nil {
		t.Fatal(err)
	}
	var read frontview.Outcome
	if err := json.Unmarshal(wire, &read); err != nil {
		t.Fatal(err)
	}
	if view := outcomeView(out); read != view {
		t.Fatalf("the front end reads %+v, the full CLI prints %+v", read, view)
	}
	for _, pair := range [][2]any{{hostd.WireOutcome{}, frontview.Outcome{}}, {redact.Card{}, frontview.Card{}}, {approval.Outcome{}, frontview.Approval{}}} {
		if a, b := reflect.TypeOf(pair[0]), reflect.TypeOf(pair[1]); a.NumField() != b.NumField() {
			t.Errorf("%v has %d fields, %v %d: carry the new one in frontview", a, a.NumField(), b, b.NumField())
		}
	}
}
