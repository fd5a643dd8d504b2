package toolhost

import (
	"errors"
	"fmt"

	"demiurge.dev/host/runtime"
)

// OpenSessionAs starts a top-level session for one front end of the
// long-lived host (host/hostd), under principal ("" is the host's own).
// The host issues the authority: the front end only names the
// principal, and everything else (capabilities, core revision, policy)
// is the host's. A served session (an `mcp serve` client) cancels its
// background tasks when it ends; a front end's session does not: its
// tasks go on and the next front end of the same principal reaches them.
func (h *Host) OpenSessionAs(principal string, served bool) *Session {
	s := h.newSession(newID("ses_"))
	if principal != "" {
		s.authority.Principal = principal
	}
	s.served = served
	h.addLive(s)
	return s
}

// RootPrincipal is the principal of the host's own sessions.
func (h *Host) RootPrincipal() string { return h.rootAuthority.Principal }

// FrontEndSessions are the live top-level sessions but the host's own
// current one (which a long-lived host's front ends never use): the
// sessions of its front ends and `mcp serve` clients.
func (h *Host) FrontEndSessions() []*Session {
	h.sessions.mu.Lock()
	defer h.sessions.mu.Unlock()
	var out []*Session
	for _, s := range h.sessions.live {
		if s != h.sessions.current && s.parent == nil {
			out = append(out, s)
		}
	}
	return out
}

// BeforeStoreOpen, when set, runs before a command opens the store in
// process: the CLI uses it to let an idle long-lived host go, or to say
// which host holds the state (cmd/demiurge/host_yield.go).
var BeforeStoreOpen func(stateDir string) error

// ErrSessionInUse answers a front end that resumes a session another
// front end has open: two turn loops on one history would interleave it.
var ErrSessionInUse = errors.New("the session is open in another front end")

// ResumeSessionAs makes the recorded top-level session id of principal a
// live front end session again, as OpenSessionAs makes a new one; the
// host's own current session is left alone. A session of another
// principal answers like a missing one.
func (h *Host) ResumeSessionAs(principal, id string) (*Session, error) {
	if principal == "" {
		principal = h.rootAuthority.Principal
	}
	store, err := h.Store()
	if err != nil {
		return nil, err
	}
	rec, err := store.Session(principal, id)
	if errors.Is(err, runtime.ErrNoSession) {
		return nil, fmt.Errorf("session %q: %w", id, ErrUnknownSession)
	}
	if err != nil {
		return nil, err
	}
	if rec.Parent != "" {
		return nil, fmt.Errorf("session %s is a delegated child's; it ended with its run and cannot be resumed", id)
	}
	s := h.newSession(id)
	s.authority.Principal = principal
	h.sessions.mu.Lock()
	defer h.sessions.mu.Unlock()
	if h.sessions.live[id] != nil {
		return nil, fmt.Errorf("session %s: %w", id, ErrSessionInUse)
	}
	h.addLiveLocked(s)
	return s, nil
}
