package mcp

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/approval"
)

// A connect the operator denied for the session is not asked again in
// that session, and nothing starts; a changed declaration, a new session
// or `mcp test` asks again. A plain deny is asked again next turn.
func TestConnectDeniedForSession(t *testing.T) {
	f := newFixture(t)
	marker := filepath.Join(t.TempDir(), "started")
	f.shellServer("echo", "touch "+marker+"; exec "+filepath.Join(f.bins, "echo"), "")
	f.ask.answers[ConnectTool("echo")] = approval.DenySession
	for turn := 1; turn <= 3; turn++ {
		st := state(t, f.resolve(), "echo")
		if st.Status != StatusDenied || !strings.Contains(st.Diagnostic, "denied for this session by test") {
			t.Fatalf("turn %d: %+v", turn, st)
		}
		if f.ask.count() != 1 {
			t.Fatalf("turn %d: asked %d times, want once", turn, f.ask.count())
		}
	}
	notStarted(t, marker, "after a deny for the session")
	// mcp test is the operator asking now: it is asked again.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if st, _ := f.pool.Test(ctx, f.turn(), "echo"); st.Status != StatusDenied || f.ask.count() != 2 {
		t.Fatalf("test: %+v asked %d", st, f.ask.count())
	}
	// A changed declaration is a new question.
	f.shellServer("echo", "touch "+marker+"; exec "+filepath.Join(f.bins, "echo"), "connect_timeout_seconds: 9\n")
	f.resolve()
	if f.ask.count() != 3 {
		t.Fatalf("changed declaration: asked %d times", f.ask.count())
	}
	// So is a new session.
	f.session = "ses_2"
	f.ask.allow(ConnectTool("echo"))
	if st := state(t, f.resolve(), "echo"); st.Status != StatusConnected || f.ask.count() != 4 {
		t.Fatalf("new session: %+v asked %d", st, f.ask.count())
	}
	// A plain deny is asked again each turn.
	g := newFixture(t)
	g.server("echo", "echo", "")
	g.resolve()
	g.resolve()
	if g.ask.count() != 2 {
		t.Fatalf("a plain deny: asked %d times, want 2", g.ask.count())
	}
}

// ResolveFor asks about, connects and lists only the servers it wants.
func TestResolveForOnlyWanted(t *testing.T) {
	f := newFixture(t)
	marker := filepath.Join(t.TempDir(), "other-started")
	f.server("docs", "echo", "")
	f.shellServer("other", "touch "+marker+"; exec "+filepath.Join(f.bins, "echo"), "")
	f.ask.allow(ConnectTool("docs"), ConnectTool("other"))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := f.pool.ResolveFor(ctx, f.turn(), func(id string) bool { return MayOffer(id, "docs__echo") })
	if len(r.States) != 1 || r.States[0].Server != "docs" || r.States[0].Status != StatusConnected || len(r.Sources) != 1 {
		t.Fatalf("%+v", r)
	}
	if f.ask.count() != 1 {
		t.Fatalf("asked %d times, want once (docs only)", f.ask.count())
	}
	notStarted(t, marker, "for a call of another server's tool")
}
