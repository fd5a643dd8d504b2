package evolve

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/corerepo/corepath"
)

// PromoteOptions are what a promote was given besides the run id.
type PromoteOptions struct {
	// MCPToken is the mcp-review token the caller passed back; it must be
	// the review's, verbatim, when the run changes MCP declarations.
	MCPToken string
	// Operator says the operator approved this promote explicitly (an
	// answer, or an --approve rule naming the run): only then may a run
	// that widens authority be promoted. A session allow or a rule inside
	// a core never sets it.
	Operator bool
	Gate     corerepo.Gate
	// Reviewed is the reviewed commit the approval of this promote named
	// (the model's approval card shows it and how it widens authority);
	// a run reviewed again since moves nothing. "": no approval card
	// named one (the CLI asks with the widening it promotes).
	Reviewed string
}

// NeedsOperatorError is a promote of a run that widens authority without
// the operator's own approval. Nothing moved.
type NeedsOperatorError struct {
	Run    string
	Widens []string
}

func (e *NeedsOperatorError) Error() string {
	return fmt.Sprintf("run %s widens authority (%s): only the operator can promote it, by answering its approval or with --approve allow:evolve_core:promote/%s; a session allow or a core's own rule does not count", e.Run, strings.Join(e.Widens, "; "), e.Run)
}

// ErrMCPReview is a promote whose mcp-review token is missing, stale or
// not the review's.
var ErrMCPReview = errors.New("this run changes MCP declarations: promote needs the mcp-review:<sha256> token of its latest review, passed back verbatim")

// Promote reruns the gates on the run's reviewed commit and moves previous
// to live and live to that commit, compare-and-swap: a run whose work tree
// or ref changed since its review, or whose review was on another live,
// moves nothing, and of two promotes racing one loses cleanly.
func Promote(ctx context.Context, r *corerepo.Repo, id, owner string, opts PromoteOptions) (Promoted, error) {
	old, commit, err := promote(ctx, r, id, owner, opts)
	return Promoted{Old: old, Live: commit}, err
}

// Promoted is what a promote moved: live was Old and is Live.
type Promoted struct{ Old, Live string }

func promote(ctx context.Context, r *corerepo.Repo, id, owner string, opts PromoteOptions) (old, commit string, err error) {
	run, err := Load(r.StateDir, id, owner)
	if err != nil {
		return "", "", err
	}
	switch run.State {
	case StatePromoted:
		return "", "", fmt.Errorf("run %s was promoted already (live %s)", id, short(run.Promoted))
	case StateReviewed:
	default:
		return "", "", fmt.Errorf("run %s is not reviewed: review it first (`demiurge core review %s`)", id, id)
	}
	if opts.Reviewed != "" && opts.Reviewed != run.Reviewed {
		return "", "", fmt.Errorf("run %s was reviewed again after its promote was approved (the approval named %s, the review is %s now): ask again", id, short(opts.Reviewed), short(run.Reviewed))
	}
	ref, _, err := r.Ref(RunRef(id))
	if err != nil {
		return "", "", err
	}
	if ref != run.Reviewed {
		return "", "", fmt.Errorf("run %s: %s moved since its review: review it again", id, RunRef(id))
	}
	work := WorkDir(r.StateDir, id)
	if err := checkWorkTree(work); err != nil {
		return "", "", inRun(err, id, work)
	}
	reviewedTree, err := r.TreeOf(run.Reviewed)
	if err != nil {
		return "", "", err
	}
	if tree, err := r.DirTree(work); err != nil {
		return "", "", inRun(err, id, work)
	} else if tree != reviewedTree {
		return "", "", fmt.Errorf("run %s changed since its review: review it again", id)
	}
	live, err := r.Live()
	if err != nil {
		return "", "", err
	}
	if live != run.ReviewedOn {
		return "", "", fmt.Errorf("live moved since run %s was reviewed (it is %s, the review was on %s): review it again", id, short(live), short(run.ReviewedOn))
	}
	if run.MCPToken != "" && opts.MCPToken != run.MCPToken {
		return "", "", ErrMCPReview
	}
	if len(run.Widens) > 0 && !opts.Operator {
		return "", "", &NeedsOperatorError{Run: id, Widens: run.Widens}
	}
	release, err := corepath.Use(r.StateDir, run.Reviewed)
	if err != nil {
		return "", "", err
	}
	defer release()
	if _, err := gated(ctx, r, run.Reviewed, work, opts.Gate); err != nil {
		return "", "", inRun(err, id, work)
	}
	prev, _, err := r.Ref(corerepo.RefPrevious)
	if err != nil {
		return "", "", err
	}
	if err := r.Move(corerepo.Update{Ref: corerepo.RefPrevious, Old: prev, New: live}, corerepo.Update{Ref: corerepo.RefLive, Old: live, New: run.Reviewed}); err != nil {
		return "", "", err
	}
	run.State, run.Promoted = StatePromoted, run.Reviewed
	if err := save(r.StateDir, run); err != nil {
		return live, run.Reviewed, fmt.Errorf("live is %s, but run %s's record could not be written: %w", short(run.Reviewed), id, err)
	}
	// No collection here: it costs more than the promote (a copy per
	// review); the next core commit or run discard collects.
	return live, run.Reviewed, nil
}

// Discard removes the run's work tree, its metadata and its ref.
func Discard(r *corerepo.Repo, id, owner string) error {
	run, err := Load(r.StateDir, id, owner)
	if err != nil {
		return err
	}
	ref, ok, err := r.Ref(RunRef(id))
	if err != nil {
		return err
	}
	if ok {
		if err := r.DeleteRef(RunRef(id), ref); err != nil {
			return err
		}
	}
	if err := os.RemoveAll(WorkDir(r.StateDir, run.ID)); err != nil {
		return err
	}
	if err := os.Remove(metaFile(r.StateDir, run.ID)); err != nil {
		return err
	}
	// The read-only copies of its reviews go too (and any other copy no
	// one needs); a copy that stays is collected next time.
	_, _ = r.CollectTrees()
	return nil
}
