package hostd

import (
	"encoding/json"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/redact"
)

// WireOutcome is a dispatch.Outcome as the host sends it to a front end:
// what the front end prints, and nothing more (the audit record stays in
// the host's store).
type WireOutcome struct {
	CallID     string           `json:"call_id"`
	Tool       string           `json:"tool"`
	Status     dispatch.Status  `json:"status"`
	Model      string           `json:"model"`
	Card       redact.Card      `json:"card"`
	Approval   approval.Outcome `json:"approval"`
	EventSeq   uint64           `json:"event_seq"`
	DurationMs int64            `json:"duration_ms"`
}

func encodeOutcome(out dispatch.Outcome) ([]byte, error) {
	return json.Marshal(WireOutcome{
		CallID: out.CallID, Tool: out.Tool, Status: out.Status, Model: out.Views.Model, Card: out.Views.Card,
		Approval: out.Approval, EventSeq: out.EventSeq, DurationMs: out.Duration.Milliseconds(),
	})
}

// DecodeOutcome is the front end's side of encodeOutcome.
func DecodeOutcome(b []byte) (dispatch.Outcome, error) {
	var w WireOutcome
	if err := json.Unmarshal(b, &w); err != nil {
		return dispatch.Outcome{}, err
	}
	return dispatch.Outcome{
		CallID: w.CallID, Tool: w.Tool, Status: w.Status, Views: redact.Views{Model: w.Model, Card: w.Card},
		Approval: w.Approval, EventSeq: w.EventSeq, Duration: time.Duration(w.DurationMs) * time.Millisecond,
	}, nil
}

// encodeRequest is an approval request as a front end shows it: the
// preview rendered, the authority left out (the front end never holds
// one).
func encodeRequest(req approval.Request) ([]byte, error) {
	if req.Preview == "" && req.PreviewFunc != nil {
		req.Preview = req.PreviewFunc()
	}
	req.PreviewFunc = nil
	req.Authority = policy.Authority{}
	return json.Marshal(req)
}

// DecodeRequest is the front end's side of encodeRequest.
func DecodeRequest(b []byte) (approval.Request, error) {
	var r approval.Request
	err := json.Unmarshal(b, &r)
	return r, err
}
