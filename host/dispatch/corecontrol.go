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
	Args               json.RawMessage
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
	pv := p.entry.Spec.Provenance
	name := p.entry.Spec.Name
	if t.Core == nil || pv.Kind != catalog.SourceBuiltin || pv.Toolset != "demiurge_control" || !coreTools[name] {
		return
	}
	call := CoreCall{Tool: name, Turn: t.ID, CallID: p.call.ID, Args: append(json.RawMessage(nil), p.argsRaw...)}
	hk.Core = func(ctx context.Context) (string, error) { return t.Core(ctx, call) }
}
