package hostd

import (
	"encoding/json"
	"fmt"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// allows answers a front end's /approvals: the live allows of its own
// session only (never another session's), listed soonest to expire
// first, and the revoke it asked for.
func (s *Server) allows(ses *toolhost.Session, req *hostv1.AllowsRequest) *hostv1.AllowsReply {
	if s.h.Approvals == nil || s.h.Approvals.Sessions == nil {
		return &hostv1.AllowsReply{Allows: []byte("[]")}
	}
	store := s.h.Approvals.Sessions
	mine := []approval.Allow{}
	for _, a := range store.List() {
		if a.Session == ses.ID() {
			mine = append(mine, a)
		}
	}
	b, _ := json.Marshal(mine)
	rep := &hostv1.AllowsReply{Allows: b}
	switch {
	case req.RevokeAll:
		n := 0
		for _, a := range mine {
			if store.RevokeAllow(a) {
				n++
			}
		}
		rep.Note = fmt.Sprintf("revoked %d session approval(s)", n)
	case req.Revoke != 0:
		n := int(req.Revoke)
		if n < 1 || n > len(mine) {
			rep.Note = fmt.Sprintf("no approval %d; /approvals lists them (1 to %d)", n, len(mine))
			break
		}
		a := mine[n-1]
		if !store.RevokeAllow(a) {
			rep.Note = fmt.Sprintf("approval %d had already expired", n)
			break
		}
		rep.Note = fmt.Sprintf("revoked %d: %s %s", n, a.Tool, a.Covers)
	}
	return rep
}
