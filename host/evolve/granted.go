package evolve

import (
	"fmt"
	"slices"
	"strings"

	"demiurge.dev/host/core"
	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/policy"
)

// grantedChanges is how the changed paths widen authority through the
// operator's path grants: a file changed, added or removed under an
// authored tool or slot that a grant gives capabilities to (a secret
// binding above all) would have the operator's grant go to code the
// operator has not seen, so such a run is the operator's to promote,
// whatever its own declarations say. The match is the grants' own
// (policy.CoreGrants.For), on every leading part of the path in its core.
func grantedChanges(changed []string, grants *policy.PathGrants) []string {
	var widens []string
	for _, p := range changed {
		rest, ok := strings.CutPrefix(p, corerepo.AgentsDir+"/")
		if !ok {
			continue
		}
		id, rel, ok := strings.Cut(rest, "/")
		if !ok {
			continue
		}
		cg := grants.ForCore(id, "")
		if len(cg) == 0 {
			continue
		}
		parts := strings.Split(rel, "/")
		for i := 1; i <= len(parts); i++ {
			under := strings.Join(parts[:i], "/")
			if g := cg.For(under); len(g) > 0 {
				var caps []string
				for _, h := range g {
					if !slices.Contains(caps, h.Capability) {
						caps = append(caps, h.Capability)
					}
				}
				widens = append(widens, fmt.Sprintf("core %s: %s changes under %s, which the operator's grants give %s", id, rel, under, strings.Join(caps, ", ")))
				break
			}
		}
	}
	return widens
}

// runningSlotChanges is how the changed paths change a slot that a stage
// of before runs: any file under agents/<core>/slots/<id>/ (its code, its
// slot.yaml's failure policy, timeout or placement). Such a slot runs
// unasked on every turn and may be the operator's screening or redaction
// of what passes through; a change to it is a change to that check, so it
// is the operator's to promote, as dropping it from the stage is.
func runningSlotChanges(changed []string, before map[string]*Authority) []string {
	var widens []string
	seen := map[string]bool{}
	for _, p := range changed {
		rest, ok := strings.CutPrefix(p, corerepo.AgentsDir+"/")
		if !ok {
			continue
		}
		parts := strings.SplitN(rest, "/", 4)
		if len(parts) < 4 || parts[1] != core.SlotsDir {
			continue
		}
		id, slot := parts[0], parts[2]
		b := before[id]
		if b == nil || seen[id+"/"+slot] {
			continue
		}
		if stage, ok := b.runs[slot]; ok {
			seen[id+"/"+slot] = true
			widens = append(widens, fmt.Sprintf("core %s: slot %s, which its %s stage runs, changes (%s)", id, slot, stage, parts[3]))
		}
	}
	return widens
}

// Operator is what of the operator's own bears on a review: their path
// grants (docs/host-grants.md) and their standing allow rules (the
// approvals file, --approve), which name tools. nil: neither.
type Operator struct {
	Grants *policy.PathGrants
	// Rules are the operator's rules as written ("allow:TOOL[:GLOB]");
	// only allow rules count.
	Rules []string
}

func (o *Operator) grants() *policy.PathGrants {
	if o == nil {
		return nil
	}
	return o.Grants
}

// operatorJudges is how a change widens authority through what the
// operator gave: a change under a granted tool or slot (grantedChanges),
// and a new authored tool whose name an allow rule of the operator's
// already names: the rule approves whatever tool bears the name, so the
// new tool would run unasked.
func operatorJudges(changed []string, before, after map[string]*Authority, o *Operator) []string {
	widens := grantedChanges(changed, o.grants())
	if o == nil {
		return widens
	}
	var ids []string
	for id := range after {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		var old map[string]Declared
		if before[id] != nil {
			old = before[id].Authored
		}
		var names []string
		for name := range after[id].Authored {
			if _, ok := old[name]; !ok {
				names = append(names, name)
			}
		}
		slices.Sort(names)
		for _, name := range names {
			if rule := allowRuleFor(o.Rules, name); rule != "" {
				widens = append(widens, fmt.Sprintf("core %s: new authored tool %s (approved by the operator's rule %s)", id, name, rule))
			}
		}
	}
	return widens
}
