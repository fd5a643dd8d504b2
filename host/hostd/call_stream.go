package hostd

import (
	"encoding/json"

	"demiurge.dev/host/dispatch"
	hostv1 "demiurge.dev/shared/hostv1"
)

// CallEvent is what a one-shot call streams to its front end while it
// runs, as an event message: its output as it comes (redacted, as
// dispatch hands it to OnOutput) and its progress, so that the front end
// shows them and a spinner as the in-process command does. A front end
// that does not know them ignores them; the outcome carries everything.
type CallEvent struct {
	Type     string  `json:"type"` // call_output or call_progress
	Stream   string  `json:"stream,omitempty"`
	Text     string  `json:"text,omitempty"`
	Progress string  `json:"progress,omitempty"`
	Fraction float64 `json:"fraction,omitempty"`
}

// Call event types.
const (
	CallOutput   = "call_output"
	CallProgress = "call_progress"
)

// streamCallOutput sends t's output and progress to fe as they come. A
// send that fails is dropped: the stream is ending, and the call's end
// is decided by the stream's context, not here.
func streamCallOutput(t *dispatch.Turn, fe *frontEnd) {
	send := func(ev CallEvent) {
		b, err := json.Marshal(ev)
		if err != nil {
			return
		}
		_ = fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Event{Event: b}})
	}
	t.OnOutput = func(_, stream, text string) { send(CallEvent{Type: CallOutput, Stream: stream, Text: text}) }
	t.OnEvent = func(_ string, ev dispatch.Event) {
		if ev.Progress != "" {
			send(CallEvent{Type: CallProgress, Progress: ev.Progress, Fraction: ev.Fraction})
		}
	}
}
