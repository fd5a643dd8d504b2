package mcp

import (
	"strings"
	"testing"
)

// TestTheCardHidesNoArgumentThatNamesWhatRuns pins that a declaration whose
// argument the connect card would hide, and no option names as a
// credential, is refused before the operator is asked: npx -y
// <redacted:arg 1> let a package the operator never saw run.
func TestTheCardHidesNoArgumentThatNamesWhatRuns(t *testing.T) {
	f := newFixture(t)
	f.server("pkg", "echo", "args: [-y, evil-pkg-a1b2c3d4e5f6g7h8i9]\n")
	f.server("mod", "echo", "args: [-m, Mod_a1B2c3D4e5F6g7H8i9]\n")
	f.server("envd", "echo", "args: [-y, evil-pkg-x]\nenv: {NAME_OF: evil-pkg-x}\n")
	f.server("named", "echo", "args: [--api-key, Zx8kq2LmN4pR7tV1wY3bC6dF, --token=sk-live-abcdef1234567890, --verbose]\n")
	r := f.resolve()
	all := strings.Join(f.ask.asked, "\n")
	for _, id := range []string{"mcp_connect__pkg", "mcp_connect__mod", "mcp_connect__envd"} {
		if strings.Contains(all, id) {
			t.Errorf("the operator was asked for %s:\n%s", id, all)
		}
	}
	if !strings.Contains(all, "mcp_connect__named") || strings.Contains(all, "Zx8kq2LmN4pR7tV1wY3bC6dF") || strings.Contains(all, "sk-live-abcdef1234567890") {
		t.Errorf("named credentials: want asked with both hidden:\n%s", all)
	}
	for _, id := range []string{"pkg", "mod", "envd"} {
		{
			st := state(t, r, id)
			if st.Status != "failed" || !strings.Contains(st.Diagnostic, "the connect card would hide it") || strings.Contains(st.Diagnostic, "evil-pkg") || strings.Contains(st.Diagnostic, "Mod_a1") {
				t.Errorf("%s: %s %q, want failed saying the card would hide an argument, never quoting it", st.Server, st.Status, st.Diagnostic)
			}
		}
	}
}
