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

// evolve_core through the host's controller: a run that widens authority
// is promoted only on the operator's own approval (not a session allow),
// an unknown and a foreign run answer alike, a start with no evolver to
// run makes no run, and a promote ends the calling session's allows.
func TestEvolveCoreThroughTheController(t *testing.T) {
	state := t.TempDir()
	h, r, first := hostOnRepo(t, Options{StateDir: state})
	ctl := h.coreController()
	call := func(args string, operator bool) (map[string]any, error) {
		out, err := ctl(context.Background(), dispatch.CoreCall{Tool: "evolve_core", Principal: "p", Session: "s1", Args: json.RawMessage(args), Operator: operator})
		if err != nil {
			return nil, err
		}
		var payload map[string]any
		return payload, json.Unmarshal([]byte(out), &payload)
	}
	refused := func(err error, want string) {
		t.Helper()
		if !errors.Is(err, plugins.ErrCoreRefused) || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want a refusal saying %q", err, want)
		}
	}

	_, err := call(`{"action":"start","goal":"add a skill"}`, true)
	refused(err, "no evolver can run here")
	if runs, _ := evolve.List(state, ""); len(runs) != 0 {
		t.Fatalf("a refused start left runs: %+v", runs)
	}

	run, err := evolve.Start(r, "widen", "p")
	if err != nil {
		t.Fatal(err)
	}
	foreign, err := evolve.Start(r, "someone else's", "q")
	if err != nil {
		t.Fatal(err)
	}
	agentYAML := filepath.Join(evolve.AgentsDir(state, run.ID), "default", "agent.yaml")
	b, err := os.ReadFile(agentYAML)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(agentYAML, append(b, "approvals: [\"allow:write_file\"]\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errUnknown := call(`{"action":"review","run_id":"run_0000000000000000"}`, true)
	_, errForeign := call(`{"action":"review","run_id":"`+foreign.ID+`"}`, true)
	if errUnknown == nil || errForeign == nil || errUnknown.Error() != errForeign.Error() {
		t.Errorf("unknown run: %v; foreign run: %v; want the same refusal", errUnknown, errForeign)
	}
	_, err = call(`{"action":"promote","run_id":"`+run.ID+`"}`, true)
	refused(err, "is not reviewed")
	rev, err := call(`{"action":"review","run_id":"`+run.ID+`"}`, false)
	if err != nil {
		t.Fatal(err)
	}
	if rev["status"] != "reviewed" || !strings.Contains(rev["content"].(string), "widens authority") {
		t.Fatalf("review: %v", rev)
	}
	_, err = call(`{"action":"promote","run_id":"`+run.ID+`"}`, false)
	refused(err, "only the operator can promote it")
	if live, _ := r.Live(); live != first {
		t.Fatal("a promote without the operator moved live")
	}

	now := time.Now()
	mine := approval.Request{Tool: "write_file", Fingerprint: "f", Authority: policy.Authority{Principal: "p", Session: "s1"}, SessionAllowable: true}
	h.Approvals.Sessions.Grant(now, mine)
	res, err := call(`{"action":"promote","run_id":"`+run.ID+`"}`, true)
	if err != nil {
		t.Fatal(err)
	}
	if live, _ := r.Live(); live == first || live != res["live"] {
		t.Fatalf("live %s after promote %v", live, res)
	}
	if _, ok := h.Approvals.Sessions.Covers(now, mine); ok {
		t.Fatal("the calling session's allow outlived the core change")
	}
	if h.Core.Version.Commit != first {
		t.Fatal("the running host's core changed under it")
	}

	_, err = call(`{"action":"discard","run_id":"`+foreign.ID+`"}`, true)
	if err == nil || err.Error() != errUnknown.Error() {
		t.Errorf("discard of a foreign run: %v", err)
	}
	if _, err := call(`{"action":"review","run_id":"`+run.ID+`","goal":"x"}`, true); err == nil {
		t.Error("review took a goal")
	}
	if _, err := call(`{"action":"review","run_id":"`+run.ID+`","extra":1}`, true); err == nil {
		t.Error("an unknown argument was accepted")
	}
	if _, err := call(`{"action":"rewrite","run_id":"`+run.ID+`"}`, true); err == nil {
		t.Error("an unknown action was accepted")
	}
}
