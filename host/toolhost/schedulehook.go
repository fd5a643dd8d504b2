package toolhost

import (
	"context"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
)

// ScheduleManager answers a schedule_manage call of session s (the
// host's scheduler, cmd/demiurge).
type ScheduleManager func(ctx context.Context, s *Session, call dispatch.ScheduleCall) (string, error)

// SetScheduleManager installs the scheduler every later turn of every
// attended session of h hands its schedule_manage calls to; without one
// schedule_manage is refused.
func (h *Host) SetScheduleManager(m ScheduleManager) {
	h.spawnMu.Lock()
	h.schedules = m
	h.spawnMu.Unlock()
}

// OpenUnattended starts a top-level session for one scheduled run, under
// principal, with only the named tools (those of the host's catalog; the
// scheduler never names schedule_manage): every call of its turns, and
// of its children's, is decided by judge alone (the lease the operator
// approved), and none of them can manage schedules.
func (h *Host) OpenUnattended(principal string, tools []string, judge func(approval.Request) (bool, string)) *Session {
	s := h.newSession(newID("ses_"))
	if principal != "" {
		s.authority.Principal = principal
	}
	s.tools = map[string]bool{}
	for _, t := range tools {
		if t != "schedule_manage" {
			s.tools[t] = true
		}
	}
	s.unattended = judge
	h.addLive(s)
	return s
}

// Unattended reports whether s is a scheduled run's session (or a child
// of one).
func (s *Session) Unattended() bool { return s.unattended != nil }

// scheduleTurn gives t the session's schedule_manage answer, or, in an
// unattended session, its lease as the only approval and no scheduler.
func (h *Host) scheduleTurn(s *Session, t *dispatch.Turn) {
	if s.unattended != nil {
		r := approval.Resolver{}
		if t.Approvals != nil {
			r = *t.Approvals
		}
		r.Provider = approval.DenyAll{}
		r.Unattended = s.unattended
		t.Approvals = &r
		t.Schedules = nil
		return
	}
	hh := h.hooksHost()
	hh.spawnMu.Lock()
	m := hh.schedules
	hh.spawnMu.Unlock()
	if m == nil {
		return
	}
	t.Schedules = func(ctx context.Context, call dispatch.ScheduleCall) (string, error) { return m(ctx, s, call) }
}
