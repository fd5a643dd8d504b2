package hostd

import (
	"testing"

	"demiurge.dev/host/dispatch"
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
