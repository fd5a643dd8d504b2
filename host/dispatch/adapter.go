// Package dispatch is the one call path: every tool call, from any entry
// point, goes lookup → schema → capability → assessment → approval →
// adapter → redaction → audit here, and nowhere else reaches an adapter.
package dispatch

import (
	"context"
	"encoding/json"
	"time"

	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/redact"
	"demiurge.dev/shared/toolsetv1"
)

// Invocation is one approved call as an adapter receives it.
type Invocation struct {
	ID, Tool  string
	Args      json.RawMessage
	Workspace string
	Grants    []policy.PathGrant
	// Paths are the host-resolved path subjects, one per argument name
	// (EffectRequest.paths): what the plugin must open. A list, not a
	// map: a call has one or two, and a map of them was two allocations
	// and 300 bytes on every call.
	Paths        []ResolvedPath
	ArtifactRoot string
	Session      string
	Turn         string
	// Secrets are values bound to this call only, by target.
	Secrets map[string]string
	// Env is the environment the host built for a command the call
	// starts; SecretsExpire is how long the bound secrets stay good.
	Env           []string
	SecretsExpire time.Duration
	// Redact are values found in the arguments that every view hides; the
	// plugin redacts them from what it persists.
	Redact []redact.Secret
	// OutputCap bounds each output stream's artifact; 0: the plugin's.
	OutputCap int64

	// SandboxPolicy is the OS sandbox of a command the call starts (JSON
	// of shared/sandbox.Policy; see sandbox.go), empty when none.
	SandboxPolicy string
	// SkillsRoot is the active core's skills root (policy.Workspace), the
	// directory the skill tools work in; "" when the core has none.
	SkillsRoot string
	// Timezone is Turn.Timezone, for EffectRequest.timezone.
	Timezone string
	Hooks    plugins.Hooks
	// CancelGrace, when set, is how long a cancelled call may still take
	// to report its result after the plugin was asked to cancel it (see
	// plugins.Manager.InvokeWithGrace); zero cancels the stream at once.
	CancelGrace time.Duration
	// OnEvent receives progress, output chunks and artifact refs.
	OnEvent func(*toolsetv1.InvokeEvent) error
	// Progress says someone takes the call's progress events
	// (Turn.OnEvent): only then does an adapter ask its tool for them (an
	// MCP progress token costs the server and the wire on every call).
	Progress bool
}

// ResolvedPath is one path argument as the host resolved it.
type ResolvedPath struct{ Arg, Path string }

// Path is the resolved path of the argument arg; "" when it has none.
func (inv *Invocation) Path(arg string) string {
	for _, p := range inv.Paths {
		if p.Arg == arg {
			return p.Path
		}
	}
	return ""
}

// Adapter runs calls for one source of tools: a toolset plugin, an MCP
// connection. The catalog hands it back with each entry as the binding.
type Adapter interface {
	Invoke(ctx context.Context, inv Invocation) (*toolsetv1.ToolResult, error)
	// Precheck asks, without effects, whether the call can succeed; a nil
	// error and a non-error result mean it may go on to approval.
	Precheck(ctx context.Context, inv Invocation) (*toolsetv1.ToolResult, error)
}

// PluginAdapter binds a toolset plugin to the catalog.
type PluginAdapter struct {
	Manager *plugins.Manager
	Toolset string
}

func (a PluginAdapter) request(inv Invocation) *toolsetv1.EffectRequest {
	req := &toolsetv1.EffectRequest{
		InvocationId: inv.ID, Tool: inv.Tool, Arguments: inv.Args,
		Workspace: inv.Workspace, ArtifactRoot: inv.ArtifactRoot,
		Secrets: inv.Secrets, SessionId: inv.Session, TurnId: inv.Turn,
		Env: inv.Env, SecretsExpireMs: inv.SecretsExpire.Milliseconds(),
		OutputCapBytes: inv.OutputCap,
		SandboxPolicy:  inv.SandboxPolicy,
		SkillsRoot:     inv.SkillsRoot,

		Timezone: inv.Timezone,
	}
	// Entries, not a map, on the wire's Go side (toolset.proto says why).
	for _, p := range inv.Paths {
		req.Paths = append(req.Paths, &toolsetv1.ResolvedPath{Arg: p.Arg, Path: p.Path})
	}
	for _, s := range inv.Redact {
		req.RedactValues = append(req.RedactValues, &toolsetv1.RedactValue{Target: s.Target, Value: s.Value})
	}
	for _, g := range inv.Grants {
		access := toolsetv1.Access_ACCESS_READ
		if g.Access == "write" {
			access = toolsetv1.Access_ACCESS_WRITE
		}
		req.Grants = append(req.Grants, &toolsetv1.PathGrant{Path: g.Path, Access: access})
	}
	return req
}

// Invoke runs the call in the plugin.
func (a PluginAdapter) Invoke(ctx context.Context, inv Invocation) (*toolsetv1.ToolResult, error) {
	return a.Manager.InvokeWithGrace(ctx, inv.CancelGrace, a.Toolset, a.request(inv), inv.Hooks, inv.OnEvent)
}

// Precheck asks the plugin's effect-free check.
func (a PluginAdapter) Precheck(ctx context.Context, inv Invocation) (*toolsetv1.ToolResult, error) {
	return a.Manager.Precheck(ctx, a.Toolset, a.request(inv))
}
