package toolhost

import (
	"context"
	"errors"
	"fmt"
	"regexp"

	"demiurge.dev/host/runtime"
)

// sessionNamePattern is what a session named on a command line may be:
// the host's own ids (ses_…) and short operator names ("plan").
var sessionNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// CheckSessionName says what is wrong with a session name given on a
// command line; nil when it can name a session.
func CheckSessionName(id string) error {
	if !sessionNamePattern.MatchString(id) {
		return fmt.Errorf("session %q: a session is named by 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit", id)
	}
	return nil
}

// namedSession is principal's session id, for a one-shot front end that
// names it (`tools call --session ID`): the recorded session when the
// principal has one of that id, else a new session recorded under it. A
// session of another principal answers like a missing one, and a
// delegated child's is never continued (it would come back with the
// host's whole authority).
func (h *Host) namedSession(ctx context.Context, principal, id string) (*Session, error) {
	if err := CheckSessionName(id); err != nil {
		return nil, err
	}
	store, err := h.Store()
	if err != nil {
		return nil, err
	}
	rec, err := store.Session(principal, id)
	if errors.Is(err, runtime.ErrNoSession) {
		// First record wins: when another principal holds the id, this
		// write keeps theirs and the lookup below still finds none.
		if err := store.RecordSession(ctx, runtime.SessionRecord{ID: id, Principal: principal}); err != nil {
			return nil, err
		}
		rec, err = store.Session(principal, id)
	}
	if errors.Is(err, runtime.ErrNoSession) {
		return nil, fmt.Errorf("session %q: %w", id, ErrUnknownSession)
	}
	if err != nil {
		return nil, err
	}
	if rec.Parent != "" {
		return nil, fmt.Errorf("session %s is a delegated child's; it ended with its run and cannot be continued", id)
	}
	s := h.newSession(id)
	s.authority.Principal = principal
	return s, nil
}

// UseSession makes principal root's session id current (see
// namedSession); the old current session ends.
func (h *Host) UseSession(ctx context.Context, id string) (*Session, error) {
	if cur := h.Session(); cur != nil && cur.ID() == id {
		return cur, nil
	}
	s, err := h.namedSession(ctx, h.rootAuthority.Principal, id)
	if err != nil {
		return nil, err
	}
	h.switchTo(s)
	return s, nil
}

// OpenNamedSessionAs is OpenSessionAs for a front end that names its
// session (see namedSession). A session open in another front end is
// refused, as ResumeSessionAs refuses it: taking its place among the live
// sessions let a later resume in while its turn still ran (two turn loops
// on one history).
func (h *Host) OpenNamedSessionAs(ctx context.Context, principal, id string) (*Session, error) {
	if principal == "" {
		principal = h.rootAuthority.Principal
	}
	s, err := h.namedSession(ctx, principal, id)
	if err != nil {
		return nil, err
	}
	h.sessions.mu.Lock()
	defer h.sessions.mu.Unlock()
	if h.sessions.live[id] != nil {
		return nil, fmt.Errorf("session %s: %w", id, ErrSessionInUse)
	}
	h.addLiveLocked(s)
	return s, nil
}
