package dispatch

import (
	"context"
	"encoding/json"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/plugins"
)

// CoreCall is one call of a core-version tool (rollback_core, evolve_core)
// as the host gets it: the tool, the call's own arguments (those dispatch
// validated and approved, never a plugin's restatement), its id and its
// turn's.
type CoreCall struct {
	Tool, Turn, CallID string
	// Principal and Session are the caller's: a run belongs to the
	// principal that started it, and a core change ends the session's
	// allows.
	Principal, Session string
	Args               json.RawMessage
	// Operator says the operator approved this very call: their answer,
	// or their own rule naming it. A session allow (an earlier answer) is
	// not, and a rule inside a core cannot approve a core tool at all.
	// Only such a call may promote a change that widens authority.
	Operator bool
	// Reviewed is what the call's approval card named as moving (a
	// promote: the run's reviewed commit, CoreCard's bind); the host
	// refuses the call when that is no longer so. "" when no card hook.
	Reviewed string
	// Asker is the turn's front-end approver and FrontEnd its front end
	// (a turn.FrontEnd): evolve_core start's evolver is a child, and its
	// own approval prompts go to them, naming it, as a delegated child's
	// do (nil: no one can answer, and they are denied).
	Asker    approval.Provider
	FrontEnd any
}

// CoreController runs a core-version call and returns the model's payload
// as JSON; a refusal the model should read wraps plugins.ErrCoreRefused.
// The host sets it for a session whose core comes from the core
// repository; nil refuses the tools.
type CoreController func(ctx context.Context, call CoreCall) (string, error)

// CoreCard says, for a core-version call about to be approved, what it
// would move (a promote: the run's reviewed commit and how it widens
// authority), for the approval card, and bind, the identity of what the
// card named: the call carries it (CoreCall.Reviewed) and the host refuses
// it when what would move is another by then. nil: nothing is added.
type CoreCard func(call CoreCall) (reasons []string, bind string)

// coreCard is t.CoreCard for p, asked once per call.
func (t *Turn) coreCard(p *prepared) ([]string, string) {
	if t.CoreCard == nil || !isCoreTool(p) {
		return nil, ""
	}
	p.coreCardOnce.Do(func() {
		p.coreReasons, p.coreBind = t.CoreCard(CoreCall{Tool: p.entry.Spec.Name, Principal: t.Authority.Principal, Session: t.Authority.Session, Args: p.argsRaw})
	})
	return p.coreReasons, p.coreBind
}

// coreHook gives the built-in tools that declare the core_control service
// (rollback_core, evolve_core), and only them, the
// turn's controller bound to this call. The hook is set after the call's
// capability and approval were resolved (the plugin runs only then, in the
// foreground or as a background task), so nothing reaches the version
// store before them.
func (t *Turn) coreHook(p *prepared, verdict approval.Outcome, hk *plugins.Hooks) {
	if t.Core == nil || !isCoreTool(p) {
		return
	}
	call := CoreCall{
		Tool: p.entry.Spec.Name, Turn: t.ID, CallID: p.call.ID, Principal: t.Authority.Principal, Session: t.Authority.Session,
		Args:     append(json.RawMessage(nil), p.argsRaw...),
		Operator: verdict.Allowed && (verdict.Via == approval.ViaPrompt || verdict.Via == approval.ViaRule),
	}
	_, call.Reviewed = t.coreCard(p)
	if t.Approvals != nil {
		call.Asker = t.Approvals.Provider
	}
	hk.Core = func(ctx context.Context) (string, error) { return t.Core(ctx, call) }
}

// isCoreTool reports whether the call is of a built-in core-version tool.
// Its approval is the operator's (OperatorOnly): a rule inside a core,
// which the agent may have written, never approves moving the core.
func isCoreTool(p *prepared) bool { return p.grants(catalog.ServiceCoreControl) }

// evolveAction is an evolution call's action key, what its approval is
// isolated by (seed 000): "start", or ACTION/RUN for review, promote and
// discard. "" for every other call: one of a tool not granted the core
// service, or one without an action argument (rollback_core has none).
func evolveAction(p *prepared) string {
	if !isCoreTool(p) {
		return ""
	}
	action, ok := p.args["action"].(string)
	if !ok {
		return ""
	}
	if action == "start" {
		return action
	}
	run, _ := p.args["run_id"].(string)
	return action + "/" + run
}

// evolveFingerprint folds the action key, and a promote's mcp-review
// token, into the call's approval fingerprint: a session allow of one
// action, run or confirmation never covers another.
func evolveFingerprint(p *prepared, fp string) string {
	key := evolveAction(p)
	if key == "" {
		return fp
	}
	token, _ := p.args["mcp_review"].(string)
	b, _ := json.Marshal([]string{fp, key, token})
	return string(b)
}

// evolveBackground reports an evolve_core start asked to run in the
// background: its evolver then runs as a task.
func evolveBackground(p *prepared) bool {
	if evolveAction(p) != "start" {
		return false
	}
	b, _ := p.args["background"].(bool)
	return b
}
