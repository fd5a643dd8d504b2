package toolhost

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"demiurge.dev/host/policy"
	"demiurge.dev/host/runtime"
)

// sessions are the host's live sessions: the current one, which the
// Host's own methods act for, and the delegated children still running.
type sessions struct {
	mu      sync.Mutex
	current *Session
	live    map[string]*Session
}

// ErrUnknownSession answers a resume of a session that does not exist and
// of one that is not the principal's alike.
var ErrUnknownSession = errors.New("no such session for this principal")

// Session is the current session.
func (h *Host) Session() *Session {
	h.sessions.mu.Lock()
	defer h.sessions.mu.Unlock()
	return h.sessions.current
}

// Authority is the current session's authority.
func (h *Host) Authority() policy.Authority { return h.Session().Authority() }

// newSession makes a session of the host's own authority under id.
func (h *Host) newSession(id string) *Session {
	a := h.rootAuthority
	a.Session = id
	return &Session{h: h, authority: a}
}

// switchTo makes s live and current; the old current session ends.
func (h *Host) switchTo(s *Session) {
	h.sessions.mu.Lock()
	old := h.sessions.current
	h.sessions.current = s
	h.addLiveLocked(s)
	h.sessions.mu.Unlock()
	if old != nil && old != s {
		// Switching away evicts the old session: its children end and its
		// MCP connections close.
		old.End()
	}
}

// NewSession switches to a fresh session; the old one ends.
func (h *Host) NewSession() *Session {
	s := h.newSession(newID("ses_"))
	h.switchTo(s)
	return s
}

// ResumeSession switches to an earlier session of this principal, found
// live in this host or recorded in the store; the old one ends. A
// delegated child's session is never resumed as a session of its own: it
// would come back with the host's whole authority instead of the one
// its parent handed it.
func (h *Host) ResumeSession(ctx context.Context, id string) (*Session, error) {
	cur := h.Session()
	if cur != nil && cur.ID() == id {
		return cur, nil
	}
	h.sessions.mu.Lock()
	s := h.sessions.live[id]
	h.sessions.mu.Unlock()
	if s != nil {
		if s.parent != nil {
			return nil, fmt.Errorf("session %s is a delegated child's; it ends with its run and cannot be resumed", id)
		}
	} else {
		store, err := h.Store()
		if err != nil {
			return nil, err
		}
		rec, err := store.Session(h.rootAuthority.Principal, id)
		if errors.Is(err, runtime.ErrNoSession) {
			return nil, fmt.Errorf("session %q: %w", id, ErrUnknownSession)
		}
		if err != nil {
			return nil, err
		}
		if rec.Parent != "" {
			return nil, fmt.Errorf("session %s is a delegated child's; it ended with its run and cannot be resumed", id)
		}
		s = h.newSession(id)
	}
	h.switchTo(s)
	return s, nil
}

// Sessions lists this principal's recorded sessions, oldest first.
func (h *Host) Sessions() ([]runtime.SessionRecord, error) {
	store, err := h.Store()
	if err != nil {
		return nil, err
	}
	return store.Sessions(h.rootAuthority.Principal)
}

// EvictSession closes the MCP connections of the live session id and of
// no other; it reports whether such a session was live.
func (h *Host) EvictSession(id string) bool {
	h.sessions.mu.Lock()
	s := h.sessions.live[id]
	h.sessions.mu.Unlock()
	if s == nil {
		return false
	}
	s.Evict()
	return true
}

// LiveSession is the live session id of h, or nil.
func (h *Host) LiveSession(id string) *Session {
	h.sessions.mu.Lock()
	defer h.sessions.mu.Unlock()
	return h.sessions.live[id]
}

// addLive makes s one of the live sessions.
func (h *Host) addLive(s *Session) {
	h.sessions.mu.Lock()
	defer h.sessions.mu.Unlock()
	h.addLiveLocked(s)
}

func (h *Host) addLiveLocked(s *Session) {
	if h.sessions.live == nil {
		h.sessions.live = map[string]*Session{}
	}
	h.sessions.live[s.ID()] = s
}

// forget drops an ended session from the live ones.
func (h *Host) forget(s *Session) {
	h.sessions.mu.Lock()
	defer h.sessions.mu.Unlock()
	if h.sessions.live[s.ID()] == s {
		delete(h.sessions.live, s.ID())
	}
}

// endSessions ends every live session, children first through their
// parents; it runs when the host closes.
func (h *Host) endSessions() {
	h.sessions.mu.Lock()
	var all []*Session
	for _, s := range h.sessions.live {
		all = append(all, s)
	}
	h.sessions.mu.Unlock()
	for _, s := range all {
		s.End()
	}
}
