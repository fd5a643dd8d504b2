package approval

import (
	"context"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// TestDenialSaysWhoDenied: a refusal at the terminal names the operator
// there, not a component ("denied by terminal").
func TestDenialSaysWhoDenied(t *testing.T) {
	r := Resolver{Provider: &Terminal{In: strings.NewReader("d\n"), Out: &strings.Builder{}}, Sessions: NewSessionAllows(DefaultSessionTTL)}
	out, err := r.Resolve(context.Background(), Request{Tool: "write_file", Policy: catalog.ApprovalPrompt, Risk: catalog.RiskMedium, Fingerprint: "fp"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Allowed || out.Reason != "denied by the operator at the terminal" {
		t.Errorf("outcome %+v", out)
	}
}
