package dispatch

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/redact"
)

// TestApprovalTextHidesHostAndRememberedSecrets: what an approver is
// shown of a call (the diff of a file's current lines, or the arguments
// the model wrote) never holds a credential of the host's or a value bound
// to an earlier command of the session, though neither is in the call's
// arguments by a name that says so.
func TestApprovalTextHidesHostAndRememberedSecrets(t *testing.T) {
	const hostValue, boundValue = "zq8HostSecretValue9", "RememberedVal77"
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.ws, "a.txt"), []byte("key="+hostValue+"\nbound="+boundValue+"\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	coding := h.source(t, "coding", codingMeta)
	installed := coding
	installed.Kind = catalog.SourceInstalled
	installed.Tools = nil
	for _, s := range coding.Tools {
		s.Provenance.Kind = catalog.SourceInstalled
		installed.Tools = append(installed.Tools, s)
	}
	calls := []ToolCall{
		{ID: "w", Name: "write_file", Args: []byte(`{"path":"a.txt","content":"other\n"}`)},
		{ID: "p", Name: "patch", Args: []byte(`{"path":"a.txt","old_string":"key=` + hostValue + `\nbound=` + boundValue + `","new_string":"x"}`)},
	}
	for _, src := range []catalog.Source{coding, installed} {
		asker := &previewAnswer{}
		turn := h.turn(t, []string{"fs.read", "fs.write"}, asker, src)
		turn.HostSecrets = NewHostSecrets(map[string]string{"MY_TOKEN": hostValue})
		turn.Remembered = &RememberedSecrets{}
		turn.Remembered.remember([]redact.Secret{{Value: boundValue, Source: "binding:B", Target: "B"}})
		for _, c := range calls {
			turn.Call(context.Background(), c)
		}
		if len(asker.shown) != len(calls) {
			t.Fatalf("%s: %d previews, want %d", src.Kind, len(asker.shown), len(calls))
		}
		for i, shown := range asker.shown {
			if strings.Contains(shown, hostValue) || strings.Contains(shown, boundValue) {
				t.Errorf("%s: call %s's approver was shown a secret: %q", src.Kind, calls[i].ID, shown)
			}
			// The installed write_file shows its arguments, which hold neither.
			held := src.Kind != catalog.SourceInstalled || calls[i].ID == "p"
			if held && (!strings.Contains(shown, "<redacted:MY_TOKEN>") || !strings.Contains(shown, "<redacted:B>")) {
				t.Errorf("%s: call %s's preview lacks the markers: %q", src.Kind, calls[i].ID, shown)
			}
		}
	}
}

// TestHostCredentialHiddenInViewsAndLiveOutput: a credential of the
// host's that a command finds in the workspace (a .env the operator left)
// and prints, split across chunks or not, is in no view of the call and
// none of its live output, though the call binds nothing; the plugin is
// never handed it.
func TestHostCredentialHiddenInViewsAndLiveOutput(t *testing.T) {
	const hostValue = "zq8HostSecretValue9"
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.ws, "env.txt"), []byte("KEY="+hostValue+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	turn, events := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	turn.HostSecrets = NewHostSecrets(map[string]string{"MY_TOKEN": hostValue})
	var live strings.Builder
	turn.OnOutput = func(_, _, text string) { live.WriteString(text) }
	// The value comes out whole, and in two writes that split it.
	cmd := `{"command":"cat env.txt; printf 'KEY=zq8Host'; sleep 0.2; printf 'SecretValue9\\n'"}`
	out := turn.Call(context.Background(), ToolCall{ID: "h1", Name: "terminal", Args: []byte(cmd)})
	if !out.OK() || strings.Count(out.Views.Model.String(), "KEY=<redacted:MY_TOKEN>") != 2 {
		t.Fatalf("%s %q", out.Status, out.Views.Model.String())
	}
	views, _ := json.Marshal(out.Views)
	if strings.Contains(string(views), hostValue) {
		t.Fatalf("a view holds the host's credential: %s", views)
	}
	for _, ev := range *events {
		if strings.Contains(string(ev.Data), hostValue) {
			t.Fatalf("the live output holds the host's credential: %q", ev.Data)
		}
	}
	if strings.Contains(live.String(), hostValue) || !strings.Contains(live.String(), "<redacted:MY_TOKEN>") {
		t.Fatalf("the operator's live output: %q", live.String())
	}
}
