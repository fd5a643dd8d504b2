package mcp

import (
	"fmt"
	"strings"
)

// Settled reports whether resolving t now would change nothing: the
// pool's authority is t's, no declaration is in error, and every declared
// server is disabled or connected on its current declaration, alive, with
// the pin file its tools were checked against. Then Resolve would take its
// fast path for every server (no connect, no approval asked, no retry
// due) and return the same sources. stamp identifies that state: the
// declarations and the connections (each build of a server's tools is
// numbered), so any change of either (a reconnect, a review rebuilding
// the tools, a declaration edited, added or removed) changes it. ok false
// means only "resolve to know".
func (p *Pool) Settled(t Turn) (stamp string, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || len(t.Errors) > 0 || t.Authority.Fingerprint() != p.identity {
		return "", false
	}
	servers, errs := refuseExecControlEnv(t.Servers, t.Errors)
	if len(errs) > 0 || len(servers) != len(t.Servers) {
		return "", false
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s\\n%s\\n", p.identity, t.Workspace.Root)
	connected := 0
	for _, s := range t.Servers {
		l := p.conns[s.ID]
		switch {
		case !s.Enabled && l == nil:
			fmt.Fprintf(&b, "%q %q %q disabled\\n", s.ID, s.File, s.Fingerprint)
			continue
		case l == nil || !s.Enabled || l.c.plan.server.Fingerprint != s.Fingerprint || l.c.plan.server.File != s.File ||
			l.c.plan.workspace != t.Workspace.Root || !l.c.alive() || pinStamp(p.cfg.StateDir, s.ID) != l.pinStamp:
			return "", false
		}
		connected++
		fmt.Fprintf(&b, "%q %q %q live %d\\n", s.ID, s.File, s.Fingerprint, l.build)
	}
	// A connection whose declaration went away is closed by the next
	// resolution: not settled.
	if connected != len(p.conns) {
		return "", false
	}
	return b.String(), true
}
