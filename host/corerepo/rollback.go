package corerepo

import (
	"errors"
	"fmt"
)

// ErrNothingPrevious is returned by a rollback when there is no previous
// revision to return to: live is the repository's first commit.
var ErrNothingPrevious = errors.New("nothing to roll back to: the core repository has no previous revision (live is its first commit)")

// Rollback makes a new commit on top of live whose tree is previous's, or
// rev's when rev is given, and moves previous to the old live and live to
// the new commit, compare-and-swap on the values read first. History is
// never rewritten: the rolled-back commits stay in live's history.
//
// rev must be a commit of live's own history (the tree was live once, and
// passed the gates and the operator then). A reviewed evolution run that
// was never promoted is not in that history, so a rollback cannot be used
// to promote it without the promote's checks.
//
// The new revision applies from the next turn: a running host keeps the
// commit it loaded until it loads a core again.
func (r *Repo) Rollback(rev string) (old, commit, target string, err error) {
	return r.RollbackIf(rev, nil)
}

// RollbackIf is Rollback that first asks check (when not nil) about
// making target's tree live in place of live: an error from it moves
// nothing and is returned as it is. The move is compare-and-swap on the
// live check was given, so what check judged is what moves.
func (r *Repo) RollbackIf(rev string, check func(live, target string) error) (old, commit, target string, err error) {
	old, err = r.Live()
	if err != nil {
		return "", "", "", err
	}
	prev, hasPrev, err := r.Ref(RefPrevious)
	if err != nil {
		return "", "", "", err
	}
	switch {
	case rev == "" || rev == "previous":
		if !hasPrev {
			return "", "", "", ErrNothingPrevious
		}
		target = prev
	default:
		if target, err = r.Resolve(rev); err != nil {
			return "", "", "", err
		}
		if ok, err := r.inLiveHistory(old, target); err != nil {
			return "", "", "", err
		} else if !ok {
			return "", "", "", fmt.Errorf("revision %q (%s) was never live: a rollback returns only to a commit of live's history (`demiurge core log`); a reviewed run is promoted with `demiurge core promote RUN`", rev, short(target))
		}
	}
	to, err := r.commit(target)
	if err != nil {
		return "", "", "", err
	}
	cur, err := r.commit(old)
	if err != nil {
		return "", "", "", err
	}
	if to.TreeHash == cur.TreeHash {
		return "", "", "", fmt.Errorf("nothing to roll back: %s has live's tree already", short(target))
	}
	if check != nil {
		if err := check(old, target); err != nil {
			return "", "", "", err
		}
	}
	commit, err = r.writeCommit(to.TreeHash, old, fmt.Sprintf("rollback to %s\n\nThe tree of %s; live was %s.", short(target), target, old))
	if err != nil {
		return "", "", "", err
	}
	if err := r.Move(Update{Ref: RefPrevious, Old: prevOrEmpty(hasPrev, prev), New: old}, Update{Ref: RefLive, Old: old, New: commit}); err != nil {
		return "", "", "", err
	}
	// The read-only copy is made by the next load of live (loadCore). No
	// collection here: removing old copies costs more than the rollback,
	// which should be quick; the next core commit or run discard collects.
	return old, commit, target, nil
}

func prevOrEmpty(ok bool, h string) string {
	if ok {
		return h
	}
	return ""
}

// inLiveHistory reports whether target is live or one of its ancestors.
func (r *Repo) inLiveHistory(live, target string) (bool, error) {
	if live == target {
		return true, nil
	}
	t, err := r.commit(target)
	if err != nil {
		return false, err
	}
	l, err := r.commit(live)
	if err != nil {
		return false, err
	}
	return t.IsAncestor(l)
}
