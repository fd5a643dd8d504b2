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
	"demiurge.dev/shared/toolsetv1"
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
	installed := asInstalled(coding)
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

// progressAdapter reports one progress message, then answers.
type progressAdapter struct{ msg string }

func (a progressAdapter) Invoke(_ context.Context, inv Invocation) (*toolsetv1.ToolResult, error) {
	if inv.OnEvent != nil {
		if err := inv.OnEvent(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Progress{Progress: &toolsetv1.Progress{Message: a.msg}}}); err != nil {
			return nil, err
		}
	}
	return &toolsetv1.ToolResult{Content: "done"}, nil
}

func (progressAdapter) Precheck(context.Context, Invocation) (*toolsetv1.ToolResult, error) {
	return &toolsetv1.ToolResult{}, nil
}

// TestProgressIsRedactedAsTheViews: a tool's progress message reaches the
// operator's screen as it comes (the spinner, a host front end, an
// editor); it holds no secret the call's views would hide: a value of its
// arguments, one bound to an earlier command of the session, the host's
// own credential, a well-known token.
func TestProgressIsRedactedAsTheViews(t *testing.T) {
	const hostValue, boundValue, token = "zq8HostSecretValue9", "RememberedVal77", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
	h := newHarness(t)
	turn := h.turn(t, []string{"fs.read"}, nil, h.source(t, "coding", codingMeta))
	turn.HostSecrets = NewHostSecrets(map[string]string{"MY_TOKEN": hostValue})
	turn.Remembered = &RememberedSecrets{}
	turn.Remembered.remember([]redact.Secret{{Value: boundValue, Source: "binding:B", Target: "B"}})
	var shown []string
	turn.OnEvent = func(_ string, ev Event) {
		if ev.Progress != "" {
			shown = append(shown, ev.Progress)
		}
	}
	entry, _ := turn.Catalog.Lookup("read_file")
	entry.Binding = progressAdapter{msg: "fetching with " + hostValue + " " + boundValue + " " + token}
	if out := turn.Call(context.Background(), ToolCall{ID: "p1", Name: "read_file", Args: []byte(`{"path":"x.txt"}`)}); !out.OK() {
		t.Fatalf("%s %s", out.Status, out.Views.Model.String())
	}
	if len(shown) != 1 {
		t.Fatalf("progress shown %q", shown)
	}
	for _, v := range []string{hostValue, boundValue, token} {
		if strings.Contains(shown[0], v) {
			t.Errorf("the progress shown holds %q: %q", v, shown[0])
		}
	}
	if !strings.Contains(shown[0], "<redacted:MY_TOKEN>") {
		t.Errorf("progress %q", shown[0])
	}
}

// cardAnswer records the approval card's text and denies.
type cardAnswer struct{ cards []string }

func (c *cardAnswer) Name() string { return "card" }
func (c *cardAnswer) Ask(_ context.Context, r approval.Request) (approval.Answer, error) {
	c.cards = append(c.cards, approval.CardText(r))
	return approval.Deny, nil
}

// TestApprovalCardHidesWhatTheViewsHide: the approval card (the operator's
// terminal, an editor's permission request, an MCP client's form, a host
// front end) shows the command and paths it asks about, but not a value
// the call's views hide: an option's password, a value bound to an
// earlier command, the host's credential.
func TestApprovalCardHidesWhatTheViewsHide(t *testing.T) {
	const hostValue, rememberedValue = "zq8HostSecretValue9", "RememberedVal77"
	h := newHarness(t)
	asker := &cardAnswer{}
	turn, _ := h.terminalTurn(t, asker)
	turn.HostSecrets = NewHostSecrets(map[string]string{"MY_TOKEN": hostValue})
	turn.Remembered = &RememberedSecrets{}
	turn.Remembered.remember([]redact.Secret{{Value: rememberedValue, Source: "binding:B", Target: "B"}})
	cmd := `{"command":"deploy --password=Hunter2Secret9 ` + hostValue + ` ` + rememberedValue + ` > out.txt"}`
	turn.Call(context.Background(), ToolCall{ID: "c1", Name: "terminal", Args: []byte(cmd)})
	if len(asker.cards) != 1 {
		t.Fatalf("cards %q", asker.cards)
	}
	for _, v := range []string{"Hunter2Secret9", hostValue, rememberedValue} {
		if strings.Contains(asker.cards[0], v) {
			t.Errorf("the approval card shows %q:\n%s", v, asker.cards[0])
		}
	}
	if !strings.Contains(asker.cards[0], "deploy --password=") {
		t.Errorf("the card lost the command:\n%s", asker.cards[0])
	}
}

// TestHostSecretInANumber: a host credential made of digits that a tool
// returns as a number (in its structured result or echoed in its
// arguments) is replaced as it is when the views are made with every host
// secret: in() must not call the result clean because a number is not a
// string. Before, in() skipped numbers, the call was made without secrets
// and the record kept the value.
func TestHostSecretInANumber(t *testing.T) {
	const pin = "86753091"
	h := NewHostSecrets(map[string]string{"BANK_PIN": pin})
	for _, tc := range []struct {
		structured string
		args       map[string]any
	}{
		{`{"n":86753091}`, nil},
		{`{"a":[{"b":1186753091}]}`, nil},                // inside a longer number
		{`{"x":86753091.5}`, nil},                        // in a fraction's text
		{`{"ok":true}`, map[string]any{"n": 86753091.0}}, // in the arguments
		{`{"s":"pin 86753091"}`, nil},                    // in a string
	} {
		raw := redact.Raw{Tool: "t", Content: "c", Args: tc.args}
		setStructured(&raw, []byte(tc.structured)) // as finish does: a plain one is deferred
		got := redact.Make(raw, h.in(&raw))
		want := redact.Make(raw, h.all())
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), pin) {
			t.Errorf("%s %v: the host's value survived: %s", tc.structured, tc.args, b)
		}
		wb, _ := json.Marshal(want.Record())
		gb, _ := json.Marshal(got.Record())
		if string(wb) != string(gb) {
			t.Errorf("%s: record with in() %s, with every host secret %s", tc.structured, gb, wb)
		}
	}
}
