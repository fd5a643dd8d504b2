package dispatch

import (
	"context"
	"encoding/json"

	"demiurge.dev/catalog"
	"demiurge.dev/host/plugins"
)

// CoreCall is one call of a core-version tool (rollback_core) as the host
// gets it: the tool, the call's own arguments (those dispatch validated and
// approved, never a plugin's restatement), its id and its turn's.
type CoreCall struct {
	Tool, Turn, CallID string
	// Session is the calling session: a core change ends its session
	// allows.
	Session string
	Args    json.RawMessage
}

// CoreController runs a core-version call and returns the model's payload
// as JSON; a refusal the model should read wraps plugins.ErrCoreRefused.
// The host sets it for a session whose core comes from the core
// repository; nil refuses the tools.
type CoreController func(ctx context.Context, call CoreCall) (string, error)

// coreTools are the built-in demiurge_control tools that reach the core
// repository.
var coreTools = map[string]bool{"rollback_core": true}

// coreHook gives the built-in core-version tools, and only them, the
// turn's controller bound to this call. The hook is set after the call's
// capability and approval were resolved (the plugin runs only then), so
// nothing reaches the version store before them.
func (t *Turn) coreHook(p *prepared, hk *plugins.Hooks) {
	if t.Core == nil || !isCoreTool(p) {
		return
	}
	call := CoreCall{Tool: p.entry.Spec.Name, Turn: t.ID, CallID: p.call.ID, Session: t.Authority.Session, Args: append(json.RawMessage(nil), p.argsRaw...)}
	hk.Core = func(ctx context.Context) (string, error) { return t.Core(ctx, call) }
}

// isCoreTool reports whether the call is of a built-in core-version tool.
// Its approval is the operator's (OperatorOnly): a rule inside a core,
// which the agent may have written, never approves moving the core.
func isCoreTool(p *prepared) bool {
	pv := p.entry.Spec.Provenance
	return pv.Kind == catalog.SourceBuiltin && pv.Toolset == "demiurge_control" && coreTools[p.entry.Spec.Name]
}
