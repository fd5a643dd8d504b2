package dispatch

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"demiurge.dev/host/approval"
)

// TestOnOutputStreamsRedactedLines: a foreground call's output reaches
// OnOutput while the call runs, line by line, with the secrets its
// arguments name and the well-known token formats replaced, as the views
// have them; the raw OnEvent is left as it was.
func TestOnOutputStreamsRedactedLines(t *testing.T) {
	h := newHarness(t)
	turn := h.turn(t, []string{"fs.read"}, &answer{a: approval.AllowOnce}, h.streamSource(t))
	turn.ArtifactRoot = t.TempDir() + "/runtime/artifacts/5e6f7a"
	password := "db-password-4f9a1c77e2"
	token := "ghp_" + strings.Repeat("a1B2", 9)
	var mu sync.Mutex
	var lines []string
	var first time.Time
	turn.OnOutput = func(callID, stream, text string) {
		mu.Lock()
		defer mu.Unlock()
		if callID != "live" || stream == "" {
			t.Errorf("OnOutput(%q, %q)", callID, stream)
		}
		if first.IsZero() {
			first = time.Now()
		}
		lines = append(lines, text)
	}
	args, _ := json.Marshal(map[string]any{"command": "deploy --password " + password + " --token " + token, "lines": 4, "interval_ms": 150})
	out := turn.Call(context.Background(), ToolCall{ID: "live", Name: "stream", Args: args})
	ended := time.Now()
	if !out.OK() {
		t.Fatalf("%s: %s", out.Status, out.Views.Model.String())
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(lines, "")
	if strings.Contains(all, password) || strings.Contains(all, token) {
		t.Fatalf("streamed output holds a secret: %q", all)
	}
	if !strings.Contains(all, "line 0 of deploy --password <redacted:option.password> --token <redacted:option.token>\n") || !strings.Contains(all, "line 3 of") {
		t.Fatalf("streamed output %q", all)
	}
	for _, l := range lines[:len(lines)-1] {
		if !strings.HasSuffix(l, "\n") {
			t.Errorf("a piece ends mid-line: %q", l)
		}
	}
	if ended.Sub(first) < 300*time.Millisecond {
		t.Errorf("the first line came %v before the call ended: it was not streamed", ended.Sub(first))
	}
}

// TestOutputLinesHoldBackBounded: a line that never ends is shown once
// maxOutputLine bytes wait, cut at a character boundary.
func TestOutputLinesHoldBackBounded(t *testing.T) {
	var got []string
	o := &outputStream{callID: "c", show: func(_, _, text string) { got = append(got, text) }}
	l := &outputLines{stream: "stdout", o: o}
	e := []byte("é")
	l.Write(append([]byte(strings.Repeat("x", maxOutputLine-1)), e[0]))
	if len(got) != 1 || len(got[0]) != maxOutputLine-1 {
		t.Fatalf("held %d pieces; the first is %d bytes, want %d", len(got), len(got[0]), maxOutputLine-1)
	}
	l.Write(append(e[1:], "tail"...))
	l.flush()
	if len(got) != 2 || got[1] != "étail" {
		t.Fatalf("flushed %q", got)
	}
}
