package evolve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/corerepo/corepath"
)

// Result is what a review found: the commit it wrote at
// refs/demiurge/runs/<id>, the exact changed paths, each changed core's
// authority before and after, how the change widens authority, and the
// mcp-review token when MCP declarations changed.
type Result struct {
	Run        *Run                  `json:"-"`
	Commit     string                `json:"commit"`
	On         string                `json:"reviewed_on"`
	Changed    []string              `json:"changed_paths"`
	Authority  map[string]CoreChange `json:"authority"`
	Widens     []string              `json:"widens_authority,omitempty"`
	MCPChanged []string              `json:"mcp_changed,omitempty"`
	MCPToken   string                `json:"mcp_review,omitempty"`
}

// ErrNothingChanged is a review of a run whose tree is live's.
var ErrNothingChanged = errors.New("the run changed nothing: its tree is live's tree")

// Review runs the host's gates on the run's work tree, committed on top of
// live, and on success points refs/demiurge/runs/<id> at that commit. A
// failing gate moves no ref and records nothing; its message names the
// run's own file (relative to its work tree), line and field. op is what
// the operator gave (nil: nothing): a change under a tool or slot their
// grants give capabilities to, or a new tool their rule names, widens
// authority (operatorJudges).
func Review(ctx context.Context, r *corerepo.Repo, id, owner string, gate corerepo.Gate, op *Operator) (*Result, error) {
	run, err := Load(r.StateDir, id, owner)
	if err != nil {
		return nil, err
	}
	if run.State == StatePromoted {
		return nil, fmt.Errorf("run %s was promoted already (live %s)", id, short(run.Promoted))
	}
	work := WorkDir(r.StateDir, id)
	if err := checkWorkTree(work); err != nil {
		return nil, inRun(err, id, work)
	}
	live, err := r.Live()
	if err != nil {
		return nil, err
	}
	commit, tree, err := r.Snapshot(work, live, fmt.Sprintf("evolve %s: %s", id, firstLine(run.Goal)))
	if err != nil {
		return nil, inRun(err, id, work)
	}
	liveTree, err := r.TreeOf(live)
	if err != nil {
		return nil, err
	}
	if tree == liveTree {
		return nil, ErrNothingChanged
	}
	release, err := corepath.Use(r.StateDir, commit)
	if err != nil {
		return nil, err
	}
	defer release()
	after, err := gated(ctx, r, commit, work, gate)
	if err != nil {
		return nil, inRun(err, id, work)
	}
	liveCopy, err := r.Materialize(live)
	if err != nil {
		return nil, err
	}
	beforeAuth, err := authorities(liveCopy)
	if err != nil {
		return nil, fmt.Errorf("live %s: %w", short(live), err)
	}
	afterAuth, err := authorities(after)
	if err != nil {
		return nil, errors.New(strings.ReplaceAll(err.Error(), after, work))
	}
	changed, err := r.ChangedPaths(live, commit)
	if err != nil {
		return nil, err
	}
	changes, widens, mcp := compare(beforeAuth, afterAuth)
	widens = append(widens, operatorJudges(changed, beforeAuth, afterAuth, op)...)
	widens = append(widens, runningSlotChanges(changed, beforeAuth)...)
	rev := &Result{Run: run, Commit: commit, On: live, Changed: changed, Authority: changes, Widens: widens, MCPChanged: mcp}
	if len(mcp) > 0 {
		rev.MCPToken = mcpToken(live, commit, mcp)
	}
	old, _, err := r.Ref(RunRef(id))
	if err != nil {
		return nil, err
	}
	if err := r.Move(corerepo.Update{Ref: RunRef(id), Old: old, New: commit}); err != nil {
		return nil, err
	}
	run.State, run.Reviewed, run.ReviewedOn, run.MCPToken, run.Widens = StateReviewed, commit, live, rev.MCPToken, widens
	if err := save(r.StateDir, run); err != nil {
		return nil, err
	}
	return rev, nil
}

// gated materializes commit and runs the gate on its copy; the error names
// the run's work tree, not the host's copy.
func gated(ctx context.Context, r *corerepo.Repo, commit, work string, gate corerepo.Gate) (string, error) {
	copyDir, err := r.Materialize(commit)
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	if gate != nil {
		if err := gate(copyDir); err != nil {
			return "", errors.New(strings.ReplaceAll(err.Error(), copyDir, work))
		}
	}
	return copyDir, nil
}

// checkWorkTree refuses what the evolver may have put beside agents/,
// where a core does not go. A .git (in any case) anywhere below is
// refused by the tree writer itself, in the same walk that reads the
// files (corerepo.IsGitName).
func checkWorkTree(work string) error {
	ents, err := os.ReadDir(work)
	if err != nil {
		return fmt.Errorf("the run's work tree %s is gone: %w", work, err)
	}
	for _, e := range ents {
		if e.Name() != corerepo.AgentsDir {
			return fmt.Errorf("%s: only %s/ belongs in a run's work tree", filepath.Join(work, e.Name()), corerepo.AgentsDir)
		}
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 72 {
		s = s[:72]
	}
	return s
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
