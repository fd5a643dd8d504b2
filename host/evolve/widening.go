package evolve

import (
	"fmt"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/corerepo/corepath"
)

// Widening is how making to's tree live in place of from's would widen
// authority, judged as a review judges a run (compare, operatorJudges,
// runningSlotChanges):
// nil when it does not. A rollback uses it: a revision of live's history
// may be one from before the operator narrowed the core (dropped a
// capability, an allow rule, an MCP server, a model endpoint), and
// returning to it is the operator's to approve, as a widening promote is.
func Widening(r *corerepo.Repo, from, to string, op *Operator) ([]string, error) {
	copies := map[string]string{}
	for _, c := range []string{from, to} {
		release, err := corepath.Use(r.StateDir, c)
		if err != nil {
			return nil, err
		}
		defer release()
		if copies[c], err = r.Materialize(c); err != nil {
			return nil, err
		}
	}
	before, err := authorities(copies[from])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", short(from), err)
	}
	after, err := authorities(copies[to])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", short(to), err)
	}
	changed, err := r.ChangedPaths(from, to)
	if err != nil {
		return nil, err
	}
	_, widens, _ := compare(before, after)
	widens = append(widens, operatorJudges(changed, before, after, op)...)
	return append(widens, runningSlotChanges(changed, before)...), nil
}
