package toolhost

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/evolve"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
)

// A rollback through the host's controller moves live, says the running
// core keeps its revision, and ends the calling session's allows (they
// were bound to the core it had), not another session's.
func TestRollbackCoreEndsTheSessionsAllows(t *testing.T) {
	state := t.TempDir()
	h, r, first := hostOnRepo(t, Options{StateDir: state})
	ctl := h.coreController()
	if ctl == nil {
		t.Fatal("a core from the repository has no core controller")
	}
	if _, err := ctl(context.Background(), dispatch.CoreCall{Tool: "rollback_core", Session: "s1", Args: json.RawMessage(`{}`)}); err == nil {
		t.Fatal("a rollback with nothing previous succeeded")
	}
	work := checkout(t, r, first)
	writeRepoCore(t, filepath.Join(work, "agents/reviewer"), "name: reviewer\n")
	if _, _, err := r.Commit(work, "add", nil); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	mine := approval.Request{Tool: "write_file", Fingerprint: "f", Authority: policy.Authority{Principal: "p", Session: "s1"}, SessionAllowable: true}
	other := mine
	other.Authority.Session = "s2"
	h.Approvals.Sessions.Grant(now, mine)
	h.Approvals.Sessions.Grant(now, other)
	out, err := ctl(context.Background(), dispatch.CoreCall{Tool: "rollback_core", Session: "s1", Args: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	var payload map[string]any
	if err := json.Unmarshal([]byte(out), &payload); err != nil || payload["status"] != "rolled_back" {
		t.Fatalf("payload %s: %v", out, err)
	}
	if live, _ := r.Live(); live == first || live != payload["live"] {
		t.Fatalf("live %s, payload %v", live, payload["live"])
	}
	if h.Core.Version.Commit != first {
		t.Fatal("the running host's core changed under it")
	}
	if _, ok := h.Approvals.Sessions.Covers(now, mine); ok {
		t.Fatal("the calling session's allow outlived the core change")
	}
	if _, ok := h.Approvals.Sessions.Covers(now, other); !ok {
		t.Fatal("another session's allow was revoked")
	}
	if _, err := ctl(context.Background(), dispatch.CoreCall{Tool: "rollback_core", Session: "s1", Args: json.RawMessage(`{"revison":"live~1"}`)}); err == nil {
		t.Fatal("a misspelt argument was accepted")
	}
}

// A rollback to a revision from before the operator narrowed the core
// (here: dropped network.fetch) widens authority again: it is the
// operator's alone, as a widening promote is. A session allow (Operator
// false) moves nothing and the model is told what it would widen; the
// operator's own approval of the call rolls back. A rollback that only
// narrows needs no more than before.
func TestARollbackThatWidensNeedsTheOperator(t *testing.T) {
	state := t.TempDir()
	h, r, first := hostOnRepo(t, Options{StateDir: state})
	ctl := h.coreController()
	work := checkout(t, r, first)
	yaml := filepath.Join(work, "agents/default/agent.yaml")
	data, err := os.ReadFile(yaml)
	if err != nil {
		t.Fatal(err)
	}
	narrowed := strings.Replace(string(data), "  - network.fetch\n", "", 1)
	if narrowed == string(data) {
		t.Fatal("the default core grants no network.fetch to drop")
	}
	if err := os.WriteFile(yaml, []byte(narrowed), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Commit(work, "the operator drops network.fetch", nil); err != nil {
		t.Fatal(err)
	}
	narrowedLive, _ := r.Live()
	for _, args := range []string{`{}`, `{"revision":"` + first + `"}`} {
		_, err := ctl(context.Background(), dispatch.CoreCall{Tool: "rollback_core", Session: "s1", Args: json.RawMessage(args)})
		if err == nil || !errors.Is(err, plugins.ErrCoreRefused) || !strings.Contains(err.Error(), "widens authority") || !strings.Contains(err.Error(), "grants network.fetch") {
			t.Fatalf("a widening rollback (%s) without the operator: %v", args, err)
		}
		if live, _ := r.Live(); live != narrowedLive {
			t.Fatalf("a refused rollback moved live to %s", live)
		}
	}
	out, err := ctl(context.Background(), dispatch.CoreCall{Tool: "rollback_core", Session: "s1", Operator: true, Args: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatalf("the operator's rollback: %v", err)
	}
	if !strings.Contains(out, "rolled_back") {
		t.Fatalf("payload %s", out)
	}
	// Back to the narrowed revision: narrowing, so a session allow does.
	if _, err := ctl(context.Background(), dispatch.CoreCall{Tool: "rollback_core", Session: "s1", Args: json.RawMessage(`{}`)}); err != nil {
		t.Fatalf("a narrowing rollback was refused: %v", err)
	}
}

// The model's promote card names the run's reviewed commit and how it
// widens authority, and binds the call to that commit; a run with no
// review binds to none, so a review made after the card moves nothing.
func TestThePromoteCardNamesTheReviewItMoves(t *testing.T) {
	state := t.TempDir()
	h, r, _ := hostOnRepo(t, Options{StateDir: state})
	card := h.coreCard()
	run, err := evolve.Start(r, "allow writes", "alice")
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"action":"promote","run_id":"` + run.ID + `"}`)
	if reasons, bind := card(dispatch.CoreCall{Tool: "evolve_core", Principal: "alice", Args: args}); bind != unreviewed || len(reasons) != 1 {
		t.Fatalf("an unreviewed run's card: %q, bind %q", reasons, bind)
	}
	y := filepath.Join(evolve.AgentsDir(state, run.ID), "default/agent.yaml")
	data, err := os.ReadFile(y)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(y, append(data, []byte("approvals: [\"allow:write_file\"]\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	rev, err := evolve.Review(context.Background(), r, run.ID, "alice", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	reasons, bind := card(dispatch.CoreCall{Tool: "evolve_core", Principal: "alice", Args: args})
	text := strings.Join(reasons, "\n")
	if bind != rev.Commit || !strings.Contains(text, "its reviewed commit "+rev.Commit[:12]) || !strings.Contains(text, "widens authority: core default: adds approval rule allow:write_file") {
		t.Fatalf("card %q, bind %q (reviewed %s)", text, bind, rev.Commit)
	}
	if reasons, bind := card(dispatch.CoreCall{Tool: "evolve_core", Principal: "mallory", Args: args}); bind != unreviewed || strings.Contains(strings.Join(reasons, ""), rev.Commit[:12]) {
		t.Fatalf("another principal's card: %q, %q", reasons, bind)
	}
	if reasons, bind := card(dispatch.CoreCall{Tool: "rollback_core", Principal: "alice", Args: json.RawMessage(`{}`)}); bind != cardShowedNoRollback ||
		!strings.Contains(strings.Join(reasons, ""), "the rollback cannot be made as asked: ") {
		t.Fatalf("the card of a rollback with nothing previous: %q, %q", reasons, bind)
	}
}

// The model's rollback card says what live would become and what that
// widens (before the operator answers, not only in the refusal), and
// binds the call to that pair: a live that moved after the card, or a
// rollback the card said could not be made, moves nothing even with the
// operator's approval; a call bound to the card it had rolls back.
func TestTheRollbackCardNamesWhatItWidens(t *testing.T) {
	state := t.TempDir()
	h, r, first := hostOnRepo(t, Options{StateDir: state})
	ctl, card := h.coreController(), h.coreCard()
	rollback := func(bind string) error {
		_, err := ctl(context.Background(), dispatch.CoreCall{Tool: "rollback_core", Session: "s1", Operator: true, Reviewed: bind, Args: json.RawMessage(`{}`)})
		return err
	}
	_, never := card(dispatch.CoreCall{Tool: "rollback_core", Args: json.RawMessage(`{}`)})
	work := checkout(t, r, first)
	yaml := filepath.Join(work, "agents/default/agent.yaml")
	data, err := os.ReadFile(yaml)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(yaml, []byte(strings.Replace(string(data), "  - network.fetch\n", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Commit(work, "the operator drops network.fetch", nil); err != nil {
		t.Fatal(err)
	}
	narrowed, _ := r.Live()
	if err := rollback(never); err == nil || !strings.Contains(err.Error(), "the core moved since this rollback's approval card") {
		t.Fatalf("a rollback whose card said it could not be made: %v", err)
	}
	reasons, bind := card(dispatch.CoreCall{Tool: "rollback_core", Args: json.RawMessage(`{}`)})
	text := strings.Join(reasons, "\n")
	if bind != narrowed+".."+first || !strings.Contains(text, "rolls live "+narrowed[:12]+" back to the tree of "+first[:12]) ||
		!strings.Contains(text, "widens authority: ") || !strings.Contains(text, "grants network.fetch") {
		t.Fatalf("card %q, bind %q", text, bind)
	}
	// live moves on after the card: the approved call moves nothing
	work = checkout(t, r, narrowed)
	if err := os.WriteFile(filepath.Join(work, "agents/default/NOTES"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := r.Commit(work, "another change", nil); err != nil {
		t.Fatal(err)
	}
	moved, _ := r.Live()
	if err := rollback(bind); err == nil || !errors.Is(err, plugins.ErrCoreRefused) || !strings.Contains(err.Error(), "the core moved since this rollback's approval card") {
		t.Fatalf("a rollback bound to an older card: %v", err)
	}
	if live, _ := r.Live(); live != moved {
		t.Fatalf("a refused rollback moved live to %s", live)
	}
	reasons, bind = card(dispatch.CoreCall{Tool: "rollback_core", Args: json.RawMessage(`{}`)})
	if text := strings.Join(reasons, "\n"); !strings.Contains(text, "widens authority: no") {
		t.Fatalf("the card of a rollback of a change that widens nothing: %q", text)
	}
	if err := rollback(bind); err != nil {
		t.Fatalf("a rollback bound to its own card: %v", err)
	}
}
