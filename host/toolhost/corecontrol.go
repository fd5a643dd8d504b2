package toolhost

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/evolve"
	"demiurge.dev/host/plugins"
)

// coreController runs the model's rollback_core and evolve_core calls against the core
// repository the host's core comes from; nil (the tools are refused) for a
// plain --core DIR, which has no revisions.
func (h *Host) coreController() dispatch.CoreController {
	if h.Core == nil || h.Core.Version == nil || h.StateDir == "" {
		return nil
	}
	running := h.Core.Version.Commit
	return func(ctx context.Context, call dispatch.CoreCall) (string, error) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		switch call.Tool {
		case "rollback_core":
			out, err := h.rollbackCore(call, running)
			if err == nil && h.Approvals != nil && h.Approvals.Sessions != nil {
				// The core changed: the session's allows, bound to the
				// core it had, end (seed 000).
				h.Approvals.Sessions.Revoke(call.Session)
			}
			return out, err
		case "evolve_core":
			out, moved, err := h.evolveCore(ctx, call)
			if moved && h.Approvals != nil && h.Approvals.Sessions != nil {
				h.Approvals.Sessions.Revoke(call.Session)
			}
			return out, err
		}
		return "", fmt.Errorf("%s is not a core-version tool", call.Tool)
	}
}

// rollbackWidensError is a rollback whose target widens authority over
// live, made without the operator's own approval of the call. Nothing moved.
type rollbackWidensError struct {
	target string
	widens []string
}

func (e *rollbackWidensError) Error() string {
	return fmt.Sprintf("rolling back to %s widens authority (%s): only the operator can approve it, by answering its approval or with --approve allow:rollback_core; a session allow or a core's own rule does not count", shortID(e.target), strings.Join(e.widens, "; "))
}

// rollbackArgs are rollback_core's arguments, read strictly from the call
// dispatch approved.
type rollbackArgs struct {
	Revision string `json:"revision"`
}

func (h *Host) rollbackCore(call dispatch.CoreCall, running string) (string, error) {
	raw := call.Args
	var a rollbackArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if len(raw) > 0 {
		if err := dec.Decode(&a); err != nil {
			return "", fmt.Errorf("%w: arguments: %v", plugins.ErrCoreRefused, err)
		}
	}
	r, err := corerepo.Open(h.StateDir)
	if err != nil {
		return "", err
	}
	op, err := h.operatorForReview(r.StateDir)
	if err != nil {
		return "", err
	}
	// A revision of live's history may be one from before the operator
	// narrowed the core: returning to it widens authority, and only the
	// operator's own approval of this call (not a session allow) may.
	old, commit, target, err := r.RollbackIf(a.Revision, func(live, target string) error {
		if call.Reviewed != "" && call.Reviewed != rollbackBind(live, target) {
			return &rollbackMovedError{card: call.Reviewed, now: rollbackBind(live, target)}
		}
		widens, err := evolve.Widening(r, live, target, op)
		if err != nil {
			return err
		}
		if len(widens) > 0 && !call.Operator {
			return &rollbackWidensError{target: target, widens: widens}
		}
		return nil
	})
	if err != nil {
		var moved *corerepo.MovedError
		var widens *rollbackWidensError
		var carded *rollbackMovedError
		if errors.Is(err, corerepo.ErrNothingPrevious) || errors.As(err, &moved) || errors.Is(err, corerepo.ErrLocked) || errors.As(err, &widens) || errors.As(err, &carded) || a.Revision != "" {
			return "", fmt.Errorf("%w: %v", plugins.ErrCoreRefused, err)
		}
		return "", err
	}
	out, err := json.Marshal(map[string]any{
		"status": "rolled_back", "live": commit, "previous": old, "tree_of": target,
		"content": fmt.Sprintf("live is now %s, a new commit with the tree of %s (previous: %s). It applies from the next turn that loads the core; this turn keeps revision %s.", commit[:12], target[:12], old[:12], shortID(running)),
	})
	return string(out), err
}
