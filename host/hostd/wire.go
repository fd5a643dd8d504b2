package hostd

import (
	"encoding/json"
	"time"

	"demiurge.dev/catalog"
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
		CallID: out.CallID, Tool: out.Tool, Status: out.Status, Model: out.Views.Model.String(), Card: out.Views.Card,
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
		CallID: w.CallID, Tool: w.Tool, Status: w.Status, Views: redact.Views{Model: redact.ModelText(w.Model), Card: w.Card},
		Approval: w.Approval, EventSeq: w.EventSeq, Duration: time.Duration(w.DurationMs) * time.Millisecond,
	}, nil
}

// wireRequest is an approval.Request as a front end shows it: the
// preview rendered, no authority (a front end never holds one).
type wireRequest struct {
	Tool             string                 `json:"tool"`
	CallID           string                 `json:"call_id"`
	Risk             catalog.Risk           `json:"risk"`
	Policy           catalog.ApprovalPolicy `json:"policy"`
	Block            bool                   `json:"block,omitempty"`
	Reasons          []string               `json:"reasons,omitempty"`
	Preview          string                 `json:"preview,omitempty"`
	Fingerprint      string                 `json:"fingerprint"`
	SessionAllowable bool                   `json:"session_allowable,omitempty"`
	SessionDeniable  bool                   `json:"session_deniable,omitempty"`
	Subjects         []policy.SubjectFact   `json:"subjects,omitempty"`
	OperatorOnly     bool                   `json:"operator_only,omitempty"`
	// Edit is a file write's change (approval.FileEdit), for a front end
	// that shows it as a diff.
	Edit *approval.FileEdit `json:"edit,omitempty"`
	// Sandbox is the card's sandbox line (approval.Request.Sandbox): what
	// a command will run under, "UNSANDBOXED" for the editor's terminal.
	// Before it a front end's card had no sandbox line (issue 32).
	Sandbox string `json:"sandbox,omitempty"`
	// Card is the card's text as the full CLI renders it from these
	// fields (approval.PromptCard), for a small front end that asks with
	// package prompt and links no policy code (host protocol 1.11).
	Card string `json:"card,omitempty"`
}

func encodeRequest(req approval.Request) ([]byte, error) {
	if req.Preview == "" && req.PreviewFunc != nil {
		req.Preview = req.PreviewFunc()
	}
	var edit *approval.FileEdit
	if req.EditFunc != nil {
		edit = req.EditFunc()
	}
	w := wireRequest{
		Tool: req.Tool, CallID: req.CallID, Risk: req.Risk, Policy: req.Policy, Block: req.Block, Reasons: req.ShownReasons(),
		Preview: req.Preview, Fingerprint: req.Fingerprint, SessionAllowable: req.SessionAllowable,
		// A front end only shows the subjects and reasons: it gets them
		// as an approver may see them (approval.Request.Shown).
		SessionDeniable: req.SessionDeniable, Subjects: req.ShownSubjects(), OperatorOnly: req.OperatorOnly,
		Edit: edit, Sandbox: req.Sandbox,
	}
	// Rendered from what the wire carries, so it is the card a full
	// CLI front end renders from DecodeRequest.
	w.Card = approval.PromptCard(w.request()).Body
	return json.Marshal(w)
}

// DecodeRequest is the front end's side of encodeRequest.
func DecodeRequest(b []byte) (approval.Request, error) {
	var w wireRequest
	if err := json.Unmarshal(b, &w); err != nil {
		return approval.Request{}, err
	}
	return w.request(), nil
}

func (w wireRequest) request() approval.Request {
	return approval.Request{
		Tool: w.Tool, CallID: w.CallID, Risk: w.Risk, Policy: w.Policy, Block: w.Block, Reasons: w.Reasons,
		Preview: w.Preview, Fingerprint: w.Fingerprint, SessionAllowable: w.SessionAllowable,
		SessionDeniable: w.SessionDeniable, Subjects: w.Subjects, OperatorOnly: w.OperatorOnly,
		EditFunc: func() *approval.FileEdit { return w.Edit }, Sandbox: w.Sandbox,
	}
}
