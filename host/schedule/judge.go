package schedule

import (
	"fmt"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
)

// Judge is the lease as a scheduled run's approval
// (approval.Resolver.Unattended): a call is allowed only when its tool,
// every path subject (where it really reaches) and every command are
// within the lease. A subject of another kind (a URL, a skill) is
// outside every lease: nothing approved it.
func (l Lease) Judge(req approval.Request) (bool, string) {
	c := LeaseCall{Tool: req.Tool}
	for _, s := range req.Subjects {
		switch catalog.SubjectKind(s.Kind) {
		case catalog.SubjectPath:
			rel := s.RealRel
			if !s.RealInside {
				rel = ""
			}
			c.Paths = append(c.Paths, rel)
		case catalog.SubjectCommand:
			c.Commands = append(c.Commands, s.Value)
		default:
			return false, fmt.Sprintf("%s: a %s subject is outside this scheduled run's lease (a lease approves tools, workspace paths and commands)", req.Tool, s.Kind)
		}
	}
	return l.Allows(c)
}
