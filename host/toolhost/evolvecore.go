package toolhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/evolve"
	"demiurge.dev/host/plugins"
)

// evolveArgs are evolve_core's arguments, read strictly from the call
// dispatch approved (the plugin's schema is the same).
type evolveArgs struct {
	Action     string `json:"action"`
	Goal       string `json:"goal"`
	RunID      string `json:"run_id"`
	MCPReview  string `json:"mcp_review"`
	Background bool   `json:"background"`
}

// Evolver runs a run's evolver as a child of parent on eh (EvolverHost:
// core `evolver`, whose only writable place is the run's work tree) and
// returns the child's final answer. The spawn gate installs it
// (SetEvolver), so that the evolver is a child like any other: bounded,
// recorded, cancelled with its parent.
type Evolver func(ctx context.Context, parent *Session, call dispatch.CoreCall, eh *Host, goal string) (string, error)

// SetEvolver installs what runs evolve_core start's evolver; without it
// start is refused before any run is made.
func (h *Host) SetEvolver(e Evolver) {
	h.spawnMu.Lock()
	h.evolver = e
	h.spawnMu.Unlock()
}

// evolveCore runs one evolve_core call; moved says live moved (the
// session's allows then end).
func (h *Host) evolveCore(ctx context.Context, call dispatch.CoreCall) (out string, moved bool, err error) {
	var a evolveArgs
	dec := json.NewDecoder(bytes.NewReader(call.Args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return "", false, fmt.Errorf("%w: arguments: %v", plugins.ErrCoreRefused, err)
	}
	r, err := corerepo.Open(h.StateDir)
	if err != nil {
		return "", false, err
	}
	if a.Action != "start" && a.RunID == "" {
		return "", false, fmt.Errorf("%w: %s needs run_id", plugins.ErrCoreRefused, a.Action)
	}
	var payload map[string]any
	switch a.Action {
	case "start":
		payload, err = h.evolveStart(ctx, r, call, a)
	case "review":
		payload, err = h.evolveReview(ctx, r, call, a)
	case "promote":
		payload, err = h.evolvePromote(ctx, r, call, a)
		moved = err == nil
	case "discard":
		if err = evolve.Discard(r, a.RunID, call.Principal); err == nil {
			payload = map[string]any{"status": "discarded", "run_id": a.RunID,
				"content": fmt.Sprintf("run %s is discarded: its work tree, metadata and ref are gone.", a.RunID)}
		}
	default:
		return "", false, fmt.Errorf("%w: action %q is unknown; want start, review, promote or discard", plugins.ErrCoreRefused, a.Action)
	}
	if err != nil {
		return "", false, refusedOrNot(err)
	}
	b, err := json.Marshal(payload)
	return string(b), moved, err
}

// refusedOrNot marks what the model should read (a gate's verdict, an
// unknown run, a stale review, a lost race) as a refusal; a broken
// repository stays an error of the host.
func refusedOrNot(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, corerepo.ErrNoRepository) {
		return err
	}
	return fmt.Errorf("%w: %v", plugins.ErrCoreRefused, err)
}

func (h *Host) evolveStart(ctx context.Context, r *corerepo.Repo, call dispatch.CoreCall, a evolveArgs) (map[string]any, error) {
	if strings.TrimSpace(a.Goal) == "" {
		return nil, errors.New("start needs a goal")
	}
	if a.RunID != "" || a.MCPReview != "" {
		return nil, errors.New("start takes a goal (and background), not run_id or mcp_review")
	}
	h.spawnMu.Lock()
	ev := h.evolver
	h.spawnMu.Unlock()
	parent := h.LiveSession(call.Session)
	if ev == nil || parent == nil {
		return nil, errors.New("no evolver can run here (this host has no spawn gate for children); the operator can make a run by hand: `demiurge core new-run GOAL`")
	}
	run, err := evolve.Start(r, a.Goal, call.Principal)
	if err != nil {
		return nil, err
	}
	eh, err := h.EvolverHost(r.StateDir, run.ID)
	if err != nil {
		_ = evolve.Discard(r, run.ID, call.Principal)
		return nil, fmt.Errorf("the evolver cannot run: %w", err)
	}
	defer eh.Close()
	answer, err := ev(ctx, parent, call, eh, a.Goal)
	if err != nil {
		return nil, fmt.Errorf("run %s: the evolver failed: %w (the run stays; review or discard it)", run.ID, err)
	}
	return map[string]any{"status": "started", "run_id": run.ID, "evolver": answer,
		"content": fmt.Sprintf("run %s: the evolver finished. Review it next: evolve_core(action=\"review\", run_id=%q).\n\n%s", run.ID, run.ID, answer)}, nil
}

func (h *Host) evolveReview(ctx context.Context, r *corerepo.Repo, call dispatch.CoreCall, a evolveArgs) (map[string]any, error) {
	if a.Goal != "" || a.MCPReview != "" || a.Background {
		return nil, errors.New("review takes run_id only")
	}
	op, err := h.operatorForReview(r.StateDir)
	if err != nil {
		return nil, err
	}
	rev, err := evolve.Review(ctx, r, a.RunID, call.Principal, h.gate(ctx, r), op)
	if err != nil {
		return nil, err
	}
	var text strings.Builder
	fmt.Fprintf(&text, "run %s is reviewed: %s at refs/demiurge/runs/%s (on live %s).\nchanged paths:\n", a.RunID, shortID(rev.Commit), a.RunID, shortID(rev.On))
	for _, p := range rev.Changed {
		fmt.Fprintf(&text, "  %s\n", p)
	}
	if len(rev.Widens) == 0 {
		text.WriteString("It does not widen authority.\n")
	} else {
		fmt.Fprintf(&text, "It widens authority (%s): only the operator can approve its promote.\n", strings.Join(rev.Widens, "; "))
	}
	if rev.MCPToken != "" {
		fmt.Fprintf(&text, "It changes MCP declarations; promote must pass mcp_review=%q.\n", rev.MCPToken)
	}
	b, err := json.Marshal(rev)
	if err != nil {
		return nil, err
	}
	var payload map[string]any
	if err := json.Unmarshal(b, &payload); err != nil {
		return nil, err
	}
	payload["status"], payload["run_id"], payload["content"] = "reviewed", a.RunID, text.String()
	return payload, nil
}

func (h *Host) evolvePromote(ctx context.Context, r *corerepo.Repo, call dispatch.CoreCall, a evolveArgs) (map[string]any, error) {
	if a.Goal != "" || a.Background {
		return nil, errors.New("promote takes run_id (and mcp_review) only")
	}
	res, err := evolve.Promote(ctx, r, a.RunID, call.Principal, evolve.PromoteOptions{MCPToken: a.MCPReview, Operator: call.Operator, Gate: h.gate(ctx, r), Reviewed: call.Reviewed})
	if err != nil {
		return nil, err
	}
	return map[string]any{"status": "promoted", "run_id": a.RunID, "live": res.Live, "previous": res.Old,
		"content": fmt.Sprintf("live is now %s (previous: %s). It applies from the next turn that loads the core; this turn keeps revision %s.", shortID(res.Live), shortID(res.Old), shortID(h.Core.Version.Commit))}, nil
}

// gate is the host's whole gate (Gate) for a commit's read-only copy.
func (h *Host) gate(ctx context.Context, r *corerepo.Repo) corerepo.Gate {
	return func(tree string) error {
		return Gate(ctx, tree, GateOptions{StateDir: r.StateDir, BuiltinPluginDir: h.opts.BuiltinPluginDir, Commit: filepath.Base(tree)})
	}
}

// operatorForReview is what of the operator's own a review judges a change
// by: their path grants, and their own allow rules (--approve, the
// approvals file; never a core's, which the review compares per core).
func (h *Host) operatorForReview(stateDir string) (*evolve.Operator, error) {
	grants, err := h.readPathGrants(stateDir)
	if err != nil {
		return nil, err
	}
	op := &evolve.Operator{Grants: grants}
	if h.Approvals != nil {
		rules, err := h.Approvals.CurrentRules() // the approvals file as it is now
		if err != nil {
			return nil, err
		}
		for _, rule := range rules {
			if rule.Explicit() {
				op.Rules = append(op.Rules, rule.String())
			}
		}
	}
	return op, nil
}

// unreviewed is the bind of a promote approved while its run had no
// review: whatever review comes later was not on the card.
const unreviewed = "unreviewed"

// coreCard says on a model's promote approval card which reviewed commit
// it moves and how that widens authority, and binds the promote to that
// commit (dispatch.CoreCard): a run reviewed again between the card and
// the promote moves nothing. A rollback's card is rollbackCard. nil for a core that is not versioned.
func (h *Host) coreCard() dispatch.CoreCard {
	if h.Core == nil || h.Core.Version == nil || h.StateDir == "" {
		return nil
	}
	return func(call dispatch.CoreCall) ([]string, string) {
		var a struct {
			Action string `json:"action"`
			RunID  string `json:"run_id"`
		}
		if call.Tool == "rollback_core" {
			return h.rollbackCard(call)
		}
		if call.Tool != "evolve_core" || json.Unmarshal(call.Args, &a) != nil || a.Action != "promote" {
			return nil, ""
		}
		run, err := evolve.Load(h.StateDir, a.RunID, call.Principal)
		if err != nil || run.State != evolve.StateReviewed {
			return []string{"the run has no review to promote"}, unreviewed
		}
		reasons := []string{fmt.Sprintf("promotes run %s: its reviewed commit %s (reviewed on live %s)", run.ID, shortID(run.Reviewed), shortID(run.ReviewedOn))}
		if len(run.Widens) == 0 {
			reasons = append(reasons, "widens authority: no")
		}
		for _, w := range run.Widens {
			reasons = append(reasons, "widens authority: "+w)
		}
		return reasons, run.Reviewed
	}
}
