package turn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/untrusted"
)

// TestAResumedSessionExplainsItsStoredEnvelopes: a session whose history
// holds a wrapped result (session_search's, under the default core),
// resumed under a core whose tools wrap nothing, still gets the
// instructions that say what the envelope means: the replayed envelope
// is data to the model only if it knows what one is.
func TestAResumedSessionExplainsItsStoredEnvelopes(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		if n == 1 {
			return calls(call("c1", "session_search", `{"query":"deploy"}`)), nil
		}
		return answer("done"), nil
	}}
	f := newFixture(t, model)
	if _, err := f.loop.Run(context.Background(), "search", &recorder{}); err != nil {
		t.Fatal(err)
	}
	if rs := lastResults(t, model.requests()[1]); len(rs) != 1 || !strings.HasPrefix(rs[0].Content, "<untrusted-data origin=\"history\"") {
		t.Fatalf("session_search's result was not wrapped: %+v", rs)
	}
	id := f.h.Session().ID()
	f.h.Close()
	f.core = t.TempDir()
	if err := os.WriteFile(filepath.Join(f.core, "agent.yaml"), []byte("toolsets: [coding]\ncapabilities: [fs.read, fs.write]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f.open(t)
	s, err := f.h.ResumeSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	f.loop.Session = s
	if _, err := f.loop.Run(context.Background(), "again", &recorder{}); err != nil {
		t.Fatal(err)
	}
	req := model.requests()[len(model.requests())-1]
	for _, td := range req.Tools {
		if td.Name == "session_search" {
			t.Fatalf("the resumed session still offers session_search: the test shows nothing")
		}
	}
	if !strings.Contains(req.System, untrusted.Instructions) {
		t.Fatalf("the replayed envelope is not explained: system = %q", req.System)
	}
}
