package hostd

import (
	"strings"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/redact"
)

// TestWireOutcomeCarriesTheJoinedModelView: an untrusted result's model
// view crosses to the front end as the one text the model reads, its
// envelope's lines joined to the content.
func TestWireOutcomeCarriesTheJoinedModelView(t *testing.T) {
	view := redact.ModelView{Head: "<untrusted-data origin=\"mcp:docs\" boundary=\"B\" screening=\"clean\">\n", Body: "page \"text\"", Tail: "\n</untrusted-data boundary=\"B\">"}
	b, err := encodeOutcome(dispatch.Outcome{CallID: "c1", Tool: "fetch", Status: dispatch.StatusOK, Views: redact.Views{Model: view}})
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeOutcome(b)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := out.Views.Model.String(), view.Head+view.Body+view.Tail; got != want {
		t.Fatalf("the front end got %q, want %q", got, want)
	}
}

// TestWireRequestCarriesWhatAnApproverMaySee: a front end only shows an
// approval's subjects and reasons, so they cross the wire as the request's
// Shown gives them, and its card text with them; the host's own request
// keeps the texts its rules decide on.
func TestWireRequestCarriesWhatAnApproverMaySee(t *testing.T) {
	const secret = "Hunter2Secret9"
	hide := func(s string) string { return strings.ReplaceAll(s, secret, "<redacted:x>") }
	req := approval.Request{
		Tool: "terminal", Reasons: []string{"writes " + secret + ".txt"},
		Subjects: []policy.SubjectFact{{Kind: "command", Value: "deploy " + secret, Resolved: "/ws/" + secret,
			Command: &policy.CommandFact{ProtectedWrites: []string{"/ws/.git/" + secret}}}},
		Shown: hide,
	}
	b, err := encodeRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), secret) {
		t.Fatalf("the wire holds the value: %s", b)
	}
	back, err := DecodeRequest(b)
	if err != nil || back.Subjects[0].Value != "deploy <redacted:x>" || back.Reasons[0] != "writes <redacted:x>.txt" {
		t.Fatalf("decoded %+v, %v", back, err)
	}
	if req.Subjects[0].Value != "deploy "+secret || req.Subjects[0].Command.ProtectedWrites[0] != "/ws/.git/"+secret {
		t.Fatalf("the host's own request was changed: %+v", req.Subjects[0])
	}
}
