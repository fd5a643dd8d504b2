package toolhost

// OpenServedSession starts a top-level session of the host's authority
// for one client of `demiurge mcp serve`: live beside the current session
// (never switched to), with its own session allows, tasks and audit
// trail. Ending it (End) also cancels its running background tasks, since
// a served session is never resumed: no one could control them after.
func (h *Host) OpenServedSession() *Session {
	s := h.newSession(newID("ses_"))
	s.served = true
	h.addLive(s)
	return s
}
