package dispatch

import (
	"sync"

	"demiurge.dev/host/redact"
)

// RememberedSecrets are the values bound to a session's commands: once a
// value has been handed to a command, anything that command left (a log
// it dumped its environment to, a file a later read_file, search_files,
// terminal or MCP call shows) may hold it, so every later call of the
// session redacts it too. They live in the host session's memory only,
// for as long as the session: never written to the store, an artifact or
// a log (the store never holds a bound value, and a keyed hash would not
// find a value inside text). A session the host forgets (a new process)
// forgets them with it.
type RememberedSecrets struct {
	mu   sync.Mutex
	list []redact.Secret
	seen map[string]bool
}

// remember adds a call's bound values.
func (r *RememberedSecrets) remember(secrets []redact.Secret) {
	if r == nil || len(secrets) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seen == nil {
		r.seen = map[string]bool{}
	}
	for _, s := range secrets {
		if s.Value != "" && !r.seen[s.Value] {
			r.seen[s.Value] = true
			r.list = append(r.list, s)
		}
	}
}

// secrets are the remembered values.
func (r *RememberedSecrets) secrets() []redact.Secret {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]redact.Secret(nil), r.list...)
}
