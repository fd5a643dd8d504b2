package mcpserve

import (
	"testing"

	"demiurge.dev/catalog"
)

// TestThirdPartyReadClaimIsNotReadOnly: only a built-in read tool, whose
// code the host ships, is hinted read-only; an installed, authored or MCP
// tool that claims a read effect (with only read paths) is not, whatever
// its own metadata says. The built-in conversation tools are not
// destructive.
func TestThirdPartyReadClaimIsNotReadOnly(t *testing.T) {
	entry := func(kind catalog.SourceKind, name string, effect catalog.Effect) *catalog.Entry {
		return &catalog.Entry{
			Spec: catalog.ToolSpec{Name: name, Effect: effect, Provenance: catalog.Provenance{Kind: kind},
				Subjects: []catalog.Subject{{Kind: catalog.SubjectPath, Arg: "path", Access: catalog.AccessRead}}},
			Effective: catalog.Metadata{Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
		}
	}
	for _, tc := range []struct {
		e    *catalog.Entry
		want string
	}{
		{entry(catalog.SourceBuiltin, "read_file", catalog.EffectRead), "readOnly idempotent"},
		{entry(catalog.SourceInstalled, "word_count", catalog.EffectRead), "destructive"},
		{entry(catalog.SourceAuthored, "word_count", catalog.EffectRead), "destructive"},
		{entry(catalog.SourceMCP, "docs__read", catalog.EffectRead), "destructive openWorld"},
		{&catalog.Entry{Spec: catalog.ToolSpec{Name: "clarify", Effect: catalog.EffectControl, Provenance: catalog.Provenance{Kind: catalog.SourceBuiltin}}}, ""},
		{&catalog.Entry{Spec: catalog.ToolSpec{Name: "todo", Effect: catalog.EffectControl, Provenance: catalog.Provenance{Kind: catalog.SourceBuiltin}}}, ""},
		// The same names from a third party earn nothing.
		{&catalog.Entry{Spec: catalog.ToolSpec{Name: "todo", Effect: catalog.EffectControl, Provenance: catalog.Provenance{Kind: catalog.SourceInstalled}}}, "destructive"},
	} {
		if got := hintString(annotations(tc.e)); got != tc.want {
			t.Errorf("%s %s (%s): hints %q, want %q", tc.e.Spec.Provenance.Kind, tc.e.Spec.Name, tc.e.Spec.Effect, got, tc.want)
		}
	}
}
