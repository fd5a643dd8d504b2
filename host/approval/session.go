package approval

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultSessionTTL is how long an "allow for session" lasts unless the
// host configures otherwise.
const DefaultSessionTTL = 30 * time.Minute

// Allow is one live session allow, as the /approvals command shows it.
type Allow struct {
	Tool    string
	Session string
	Scope   string
	Expires time.Time
	// Fingerprint is a prefix of the call fingerprint it covers, enough
	// to tell allows apart on screen.
	Fingerprint string
	// Covers says in words what the allow covers: the subjects of the
	// call it was given for (paths with their access, a command's shape).
	Covers string

	key string
}

// SessionAllows remembers "allow for session" answers. Each is keyed by
// the authority fingerprint, the tool and the call fingerprint, so it
// covers only the same subjects under the same principal, session, core
// revision, capabilities and policy, and it expires after the TTL.
type SessionAllows struct {
	ttl    time.Duration
	mu     sync.Mutex
	allows map[string]Allow
}

// NewSessionAllows makes an empty store; a ttl of zero or less means
// DefaultSessionTTL.
func NewSessionAllows(ttl time.Duration) *SessionAllows {
	if ttl <= 0 {
		ttl = DefaultSessionTTL
	}
	return &SessionAllows{ttl: ttl, allows: map[string]Allow{}}
}

// TTL is how long a new allow lasts.
func (s *SessionAllows) TTL() time.Duration { return s.ttl }

// sessionKey binds an allow to the authority, the tool and the subjects.
func sessionKey(req Request) string {
	h := sha256.New()
	var n [8]byte
	for _, f := range []string{"demiurge.session-allow.v1", req.Authority.Fingerprint(), req.Tool, req.Fingerprint} {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Grant records an allow for req from now until now+TTL and returns it.
// Expired allows are dropped on the way, so the store stays bounded by
// what is live.
func (s *SessionAllows) Grant(now time.Time, req Request) Allow {
	a := Allow{
		Tool:        req.Tool,
		Session:     req.Authority.Session,
		Scope:       ScopeSession,
		Expires:     now.Add(s.ttl),
		Fingerprint: prefix(req.Fingerprint, 12),
		Covers:      coverage(req),
		key:         sessionKey(req),
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLocked(now)
	s.allows[a.key] = a
	return a
}

// Covers reports the live allow that covers req, if any.
func (s *SessionAllows) Covers(now time.Time, req Request) (Allow, bool) {
	key := sessionKey(req)
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.allows[key]
	if !ok {
		return Allow{}, false
	}
	if !now.Before(a.Expires) {
		delete(s.allows, key)
		return Allow{}, false
	}
	return a, true
}

// Revoke drops every allow of one session and says how many there were.
func (s *SessionAllows) Revoke(session string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, a := range s.allows {
		if a.Session == session {
			delete(s.allows, k)
			n++
		}
	}
	return n
}

// RevokeAllow drops one allow as List returned it and says whether it
// was still live.
func (s *SessionAllows) RevokeAllow(a Allow) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.allows[a.key]; !ok || a.key == "" {
		return false
	}
	delete(s.allows, a.key)
	return true
}

// List returns the live allows, soonest to expire first.
func (s *SessionAllows) List() []Allow { return s.ListAt(time.Now()) }

// ListAt is List as seen at now.
func (s *SessionAllows) ListAt(now time.Time) []Allow {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pruneLocked(now)
	out := make([]Allow, 0, len(s.allows))
	for _, a := range s.allows {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b Allow) int {
		if c := a.Expires.Compare(b.Expires); c != 0 {
			return c
		}
		return strings.Compare(a.Tool+a.Fingerprint, b.Tool+b.Fingerprint)
	})
	return out
}

func (s *SessionAllows) pruneLocked(now time.Time) {
	for k, a := range s.allows {
		if !now.Before(a.Expires) {
			delete(s.allows, k)
		}
	}
}

func prefix(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
