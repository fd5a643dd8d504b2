package mcp

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/core"
	"demiurge.dev/host/policy"
)

// ConnectTool is the name a server's connect approval is asked and ruled
// under: "--approve allow:mcp_connect__docs" approves connecting docs.
func ConnectTool(server string) string { return "mcp_connect__" + server }

// ConnectCapability is the capability connecting a server needs.
func ConnectCapability(server string) string { return policy.PrefixMCPConnect + ":" + server }

// gate decides whether a planned server may connect: the capability
// first, then the connect approval with a preview of safe launch metadata.
// It runs before any client is made or process started. A nil error is an
// allow.
func gate(ctx context.Context, p *plan, a policy.Authority, approvals *approval.Resolver) error {
	id := p.server.ID
	if err := policy.Gate([]string{ConnectCapability(id)}, a, nil); err != nil {
		return &deniedError{msg: fmt.Sprintf("capability %s is not granted; grant it in agent.yaml capabilities", ConnectCapability(id))}
	}
	if approvals == nil {
		approvals = &approval.Resolver{}
	}
	what := "starts " + filepath.Base(p.command)
	if p.server.Transport == core.MCPHTTP {
		what = "connects to " + safeOrigin(p.server.URL)
	}
	out, err := approvals.Resolve(ctx, approval.Request{
		Tool: ConnectTool(id), CallID: "connect:" + id, Risk: catalog.RiskHigh, Policy: catalog.ApprovalPrompt,
		Reasons:     []string{fmt.Sprintf("MCP server %s %s and offers its tools to the agent", id, what)},
		Preview:     preview(p),
		Fingerprint: p.key, Authority: a, SessionAllowable: true, SessionDeniable: true, OperatorOnly: true,
	})
	if err != nil {
		return &deniedError{msg: "connect approval was interrupted: " + err.Error()}
	}
	if !out.Allowed && out.Scope == approval.ScopeSession {
		return &deniedError{msg: "connect was " + out.Reason + "; it is not asked again until the session ends or the server's declaration changes", forSession: true}
	}
	if !out.Allowed {
		return &deniedError{msg: "connect was not approved: " + out.Reason}
	}
	return nil
}

// deniedError is a refusal by capability or approval: asked again next
// turn, never negatively cached, unless the operator answered "deny for
// session" (forSession): the pool then keeps it for the session.
type deniedError struct {
	msg        string
	forSession bool
}

func (e *deniedError) Error() string { return e.msg }

// preview is the launch metadata an approver sees: the program, the
// arguments with credential-looking values replaced, the working
// directory, the names (never the values) of env entries and headers, and
// the URL's origin without userinfo, path or query.
func preview(p *plan) string {
	s := p.server
	var b strings.Builder
	fmt.Fprintf(&b, "server: %s (%s)\ntransport: %s\n", s.ID, s.File, s.Transport)
	switch s.Transport {
	case core.MCPStdio:
		fmt.Fprintf(&b, "command: %s (sha256 %s)\n", p.command, short(p.programSHA256))
		if p.script != "" {
			fmt.Fprintf(&b, "script: %s (sha256 %s)\n", p.script, short(p.scriptSHA256))
		}
		if len(s.Args) > 0 {
			args := make([]string, len(s.Args))
			for i, a := range s.Args {
				args[i] = fmt.Sprintf("%q", p.previewArg(i, a))
			}
			fmt.Fprintf(&b, "args: %s\n", clipRunes(strings.Join(args, " "), 400))
		}
		fmt.Fprintf(&b, "cwd: %s\n", p.cwd)
		if len(s.Env) > 0 {
			keys := make([]string, len(s.Env))
			for i, kv := range s.Env {
				keys[i] = kv.Key
			}
			fmt.Fprintf(&b, "env (names only): %s\n", strings.Join(keys, ", "))
		}
	case core.MCPHTTP:
		fmt.Fprintf(&b, "origin: %s\n", safeOrigin(s.URL))
		for _, a := range p.private {
			fmt.Fprintf(&b, "private address allowed by the operator: %s (from %s)\n", a.Addr, a.Source)
		}
		if len(s.Headers) > 0 {
			keys := make([]string, len(s.Headers))
			for i, kv := range s.Headers {
				keys[i] = kv.Key
			}
			fmt.Fprintf(&b, "headers (names only): %s\n", strings.Join(keys, ", "))
		}
	}
	fmt.Fprintf(&b, "protocol: %s, connect timeout %s", s.ProtocolVersion, s.ConnectTimeout)
	return b.String()
}

// safeOrigin is scheme://host[:port] of a URL, nothing else.
func safeOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "<invalid url>"
	}
	return u.Scheme + "://" + u.Host
}

func short(sum string) string {
	if len(sum) > 16 {
		return sum[:16]
	}
	return sum
}
