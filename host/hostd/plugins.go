package hostd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"demiurge.dev/host/plugins"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/hostv1"
)

// Plugins is `demiurge plugins list|verify` in the host (minor 9): the
// plugins this host discovered when it opened, with their live state (a
// running one's pid), and its sandbox as it reports it. A plugin
// installed since is not among them until the host is replaced.
func (s *Server) Plugins(_ context.Context, req *hostv1.PluginsRequest) (*hostv1.PluginsResponse, error) {
	if req.Verify {
		verified, err := json.Marshal(s.verifyPlugins(req.Names))
		return &hostv1.PluginsResponse{Verified: verified}, err
	}
	sts := s.h.Plugins.Statuses()
	if sts == nil {
		sts = []plugins.Status{}
	}
	statuses, err := json.Marshal(sts)
	if err != nil {
		return nil, err
	}
	sandbox, err := json.Marshal(sandboxing.Report(s.h.Sandbox.Helper, s.h.Sandbox.Mode))
	return &hostv1.PluginsResponse{Statuses: statuses, Sandbox: sandbox}, err
}

// verifyPlugins verifies what this host runs; a name it did not discover
// when it opened (installed since) is refused saying so, rather than as
// a plugin that is not installed.
func (s *Server) verifyPlugins(names []string) []plugins.Verified {
	known := map[string]bool{}
	for _, c := range s.h.Plugins.Candidates() {
		known[c.Name] = true
	}
	if len(names) == 0 {
		return s.h.Plugins.VerifyAll(nil)
	}
	out := make([]plugins.Verified, 0, len(names))
	for _, n := range names {
		if !known[n] {
			out = append(out, plugins.Verified{Name: n, Error: fmt.Sprintf("no toolset plugin %q is among those the running host (pid %d) found when it opened (one installed since is offered, and verified, once the host is replaced: demiurge host stop)", n, os.Getpid())})
			continue
		}
		out = append(out, s.h.Plugins.VerifyAll([]string{n})...)
	}
	return out
}
