package toolhost

import (
	"context"
	"errors"
	"strings"
	"testing"

	"demiurge.dev/host/runtime"
)

// TestNamedSessions: a one-shot front end's --session is the principal's
// recorded session or a new one recorded under that name; another
// principal's session, a delegated child's and a name no session can have
// are refused, and the refusal for another's reads like a missing one.
func TestNamedSessions(t *testing.T) {
	h, err := Open(Options{Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	root := h.RootPrincipal()

	s, err := h.OpenNamedSessionAs(ctx, "", "plan")
	if err != nil || s.ID() != "plan" || s.Authority().Principal != root {
		t.Fatalf("%v %v", s, err)
	}
	store, _ := h.Store()
	if rec, err := store.Session(root, "plan"); err != nil || rec.Principal != root {
		t.Fatalf("plan was not recorded as %s's: %+v %v", root, rec, err)
	}
	// While plan is live, no other front end opens it, named or resumed
	// (two turn loops would interleave one history).
	if _, err := h.OpenNamedSessionAs(ctx, root, "plan"); !errors.Is(err, ErrSessionInUse) {
		t.Fatalf("plan opened twice at once: %v", err)
	}
	if _, err := h.ResumeSessionAs(root, "plan"); !errors.Is(err, ErrSessionInUse) {
		t.Fatalf("plan resumed while a named front end has it: %v", err)
	}
	s.End()
	again, err := h.OpenNamedSessionAs(ctx, root, "plan")
	if err != nil || again.ID() != "plan" {
		t.Fatalf("reopening plan: %v", err)
	}
	if _, err := h.OpenNamedSessionAs(ctx, root, "plan"); !errors.Is(err, ErrSessionInUse) {
		t.Fatalf("plan opened twice at once: %v", err)
	}
	again.End()
	if _, err := h.OpenNamedSessionAs(ctx, "local:mallory", "plan"); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("another principal opened plan: %v", err)
	}
	if _, err := h.OpenNamedSessionAs(ctx, "local:mallory", "hers"); err != nil {
		t.Fatal(err)
	}
	if _, err := h.UseSession(ctx, "hers"); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("the root principal used another's session: %v", err)
	}
	if err := store.RecordSession(ctx, runtime.SessionRecord{ID: "kid", Principal: root, Parent: "plan"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.UseSession(ctx, "kid"); err == nil || !strings.Contains(err.Error(), "delegated child") {
		t.Fatalf("continued a delegated child's session: %v", err)
	}
	for _, bad := range []string{"", "../x", "-x", "a b", "a/b", strings.Repeat("a", 65), "plan\n"} {
		if _, err := h.UseSession(ctx, bad); err == nil || errors.Is(err, ErrUnknownSession) {
			t.Fatalf("session name %q: %v", bad, err)
		}
	}
	cur, err := h.UseSession(ctx, "plan")
	if err != nil || h.Session() != cur || h.Authority().Session != "plan" {
		t.Fatalf("UseSession did not switch: %v", err)
	}
}
