package hostd

import "demiurge.dev/host/approval"

// frontEndApprovals is the host's resolver as one front end's call sees
// it: the core's rules and the session allows, the front end's own
// --approve rules in place of the host's command-line ones, and the front
// end as the one asked. The call's MCP connect approvals are resolved
// under it too, so a connect is judged by the caller's rules and asked of
// the caller, never of the host's own (absent) terminal.
func frontEndApprovals(host *approval.Resolver, approve []string, fe approval.Provider) (*approval.Resolver, error) {
	r := approval.Resolver{}
	if host != nil {
		r = *host
	}
	var err error
	if r.Rules, err = approval.WithCommandLine(r.Rules, approve); err != nil {
		return nil, err
	}
	r.Provider = fe
	if f, ok := fe.(*frontEnd); ok && !f.asker {
		// No one can answer there (a one-shot call without a terminal):
		// the resolver then says so and how the operator approves, where
		// the front end's deny read "denied by front-end".
		r.Provider = approval.DenyAll{}
	}
	return &r, nil
}
