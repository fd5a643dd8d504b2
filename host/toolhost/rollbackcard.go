package toolhost

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/evolve"
)

// errCardOnly ends the rollback the card looks at before anything moves.
var errCardOnly = errors.New("card only")

// rollbackCard says on a model's rollback approval card what live would
// become and how that widens authority (the comparison the rollback
// itself applies), and binds the call to that pair: a live or previous
// that moved between the card and the rollback moves nothing
// (rollbackMovedError). A rollback that cannot be made says why.
func (h *Host) rollbackCard(call dispatch.CoreCall) ([]string, string) {
	var a rollbackArgs
	dec := json.NewDecoder(bytes.NewReader(call.Args))
	dec.DisallowUnknownFields()
	if len(call.Args) > 0 && dec.Decode(&a) != nil {
		return nil, "" // the rollback refuses its arguments itself
	}
	r, err := corerepo.Open(h.StateDir)
	if err != nil {
		return []string{"the core repository cannot be read: " + err.Error()}, ""
	}
	op, err := h.operatorForReview(r.StateDir)
	if err != nil {
		return []string{"the core repository cannot be read: " + err.Error()}, ""
	}
	var reasons []string
	var bind string
	_, _, _, err = r.RollbackIf(a.Revision, func(live, target string) error {
		widens, err := evolve.Widening(r, live, target, op)
		if err != nil {
			return err
		}
		bind = rollbackBind(live, target)
		reasons = append(reasons, fmt.Sprintf("rolls live %s back to the tree of %s", shortID(live), shortID(target)))
		if len(widens) == 0 {
			reasons = append(reasons, "widens authority: no")
		}
		for _, w := range widens {
			reasons = append(reasons, "widens authority: "+w)
		}
		return errCardOnly
	})
	if !errors.Is(err, errCardOnly) {
		// bound to nothing a rollback can match: one that has become
		// possible since moves nothing the card did not show
		return []string{"the rollback cannot be made as asked: " + err.Error()}, cardShowedNoRollback
	}
	return reasons, bind
}

// cardShowedNoRollback binds a call whose card said the rollback cannot
// be made.
const cardShowedNoRollback = "none"

// rollbackBind names what a rollback's card showed: live and the target.
func rollbackBind(live, target string) string { return live + ".." + target }

// rollbackMovedError is a rollback whose live or target is not what its
// approval card named. Nothing moved.
type rollbackMovedError struct{ card, now string }

func (e *rollbackMovedError) Error() string {
	return fmt.Sprintf("the core moved since this rollback's approval card (it named %s, it would now be %s): nothing was rolled back; call rollback_core again to see the new card", e.card, e.now)
}
