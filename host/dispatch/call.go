package dispatch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/egress"
	"demiurge.dev/host/internal/jsonenc"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/redact"
	"demiurge.dev/shared/toolsetv1"
)

// previewLimit bounds the argument preview an approver sees.
const previewLimit = 600

// prepared is a call after the pure steps: lookup, schema, capability and
// assessment. A call that failed one of them carries its failure.
type prepared struct {
	// auditSecrets are the values the call's views were redacted with
	// (finish sets them): the audit's fields from outside the views are
	// redacted with them too (auditResourceKeys, commandPlan.audit).
	auditSecrets []redact.Secret

	// authoredEgress is the egress proxy of an authored tool's worker in
	// network mode (sandbox_authored.go), closed when the call ends.
	authoredEgress *egress.Proxy

	call    ToolCall
	entry   *catalog.Entry
	args    map[string]any
	argsRaw json.RawMessage
	assess  *policy.Assessment
	command *commandPlan // calls with a command subject
	status  Status       // set when a pure step refused the call
	message string
	start   time.Time
	// edit is the write's change to its file, read once (file_edit.go).
	editOnce sync.Once
	edit     *approval.FileEdit
	// base is the written file as read for the card's diff and the edit,
	// read once, so that both and the write's binding name one content.
	baseOnce sync.Once
	base     fileBase
	// argSecrets are the secrets in args, searched once (secretsInArgs).
	argSecretsOnce sync.Once
	argSecrets     []redact.Secret
	// coreReasons and coreBind are Turn.CoreCard's answer, asked once.
	coreCardOnce sync.Once
	coreReasons  []string
	coreBind     string
	// heard are the children whose answers an authored tool's code
	// received (ctx.agents): its result is then wrapped as theirs.
	heard heardChildren
}

// secretsInArgs is redact.Discover(p.args, nil), searched once per call:
// the plugin's stream redactor, the live output, the edit preview and the
// views all hide them. Callers must not append to it in place.
func (p *prepared) secretsInArgs() []redact.Secret {
	p.argSecretsOnce.Do(func() { p.argSecrets = redact.Discover(p.args, nil) })
	return p.argSecrets
}

// conflictsWith reports whether p must wait for the earlier call q of its
// batch: their resource keys conflict (policy.Conflicts). A call refused
// before admission has no effect and conflicts with nothing.
func (p *prepared) conflictsWith(q *prepared) bool {
	if p.status != "" || q.status != "" || p.assess == nil || q.assess == nil {
		return false
	}
	return policy.Conflicts(p.assess.ResourceKeys, q.assess.ResourceKeys, p.assess.ReadOnly, q.assess.ReadOnly)
}

// Call runs one call through the whole path.
func (t *Turn) Call(ctx context.Context, call ToolCall) Outcome {
	// A batch of one, without the batch's bookkeeping.
	return t.run(ctx, t.prepare(call))
}

// prepare runs steps 1–4 of the call path: they have no effects.
func (t *Turn) prepare(call ToolCall) *prepared {
	p := &prepared{call: call, start: time.Now()}
	count := &t.calls
	if t.CallCount != nil {
		count = t.CallCount
	}
	if n := count.Add(1); n > int64(t.maxCalls()) {
		p.status, p.message = StatusCapExceeded, fmt.Sprintf("this turn already made %d tool calls, the most a turn may make; continue in the next turn", t.maxCalls())
		return p
	}
	entry, ok := t.Catalog.Lookup(call.Name)
	if !ok {
		p.status, p.message = StatusUnknownTool, unknownToolMessage(call.Name, t.Catalog)
		return p
	}
	if t.Catalog.Hidden(call.Name) {
		// Deferred: not in the definitions the model was given.
		p.status, p.message = StatusUnknownTool, fmt.Sprintf("%s is a deferred tool and not active in this session; call search_capabilities with words from its name or purpose to activate it", call.Name)
		return p
	}
	t.prepareEntry(p, entry)
	return p
}

// prepareEntry runs the pure steps after the lookup: schema, capability,
// assessment and the command plan.
func (t *Turn) prepareEntry(p *prepared, entry *catalog.Entry) {
	call := p.call
	p.entry = entry
	args, err := entry.Schema.Coerce(call.Args)
	if err != nil {
		p.status, p.message = StatusInvalidArguments, fmt.Sprintf("%s: %v", call.Name, err)
		var ae *catalog.ArgumentError
		if !errors.As(err, &ae) {
			p.message = fmt.Sprintf("%s: arguments could not be read: %v", call.Name, err)
		}
		return
	}
	p.args = args
	// The bytes json.Marshal would give, without its reflection, in a
	// buffer about the size of the call's own (MarshalData's 512 bytes
	// were most of a small call's arguments' garbage).
	if p.argsRaw, err = jsonenc.Append(make([]byte, 0, len(call.Args)+len(call.Args)/4+16), args, true); err != nil {
		p.status, p.message = StatusInvalidArguments, fmt.Sprintf("%s: arguments could not be encoded: %v", call.Name, err)
		return
	}
	if err := policy.Gate(entry.RequiredCapabilities, t.Authority, entry.HostGranted); err != nil {
		p.status, p.message = StatusCapabilityDenied, err.Error()
		return
	}
	a, err := policy.Assess(entry.Spec, entry.Effective, args, t.Workspace)
	if err != nil {
		p.status, p.message = StatusInvalidArguments, fmt.Sprintf("%s: %v", call.Name, err)
		return
	}
	p.assess = &a
	if p.command, err = t.prepareCommand(p); err != nil {
		p.status, p.message = StatusInvalidArguments, fmt.Sprintf("%s: %v", call.Name, err)
		return
	}
	if !p.command.sessionAllowable() {
		// A literal command the guard would let run unasked still hands
		// over a secret: that is always asked about.
		p.assess.Raise(catalog.RiskHigh, catalog.ApprovalPrompt, "binds secrets into the command's environment")
	}
}

// preview renders the arguments for an approver. Only a call someone is
// asked about needs one (approval.Request.PreviewFunc): URL arguments
// appear as their origin summary only (seed: the URL is reduced to a
// credential-free origin before approval).
//
// known are the values beyond the arguments' own that no approver may see
// (Turn.redactionValues): a file's current lines in a diff, or a value the
// model copied into its arguments, may hold one.
func (p *prepared) preview(known []redact.Secret) string {
	if diff, ok := p.diffPreview(known); ok {
		return diff
	}
	return redact.PreviewOf(p.assess.PreviewArgs(p.shownArgs()), previewLimit, known)
}

// operatorOnly reports whether the call hands the command an environment
// overlay or a secret binding: what the operator must approve (an
// --approve rule, a session allow or an answer), never an auto policy or
// a rule in the core, which the agent may have written.
func (p *prepared) operatorOnly() bool {
	if operatorScopeRequested(p) || isCoreTool(p) {
		return true
	}
	if p.command != nil && len(p.command.bindings.Bindings) > 0 {
		return true
	}
	// The network is the operator's: a command asking for it (seed 000:
	// it always asks) and an authored tool whose worker runs in network
	// mode send what the agent holds wherever they like; a core's
	// `allow:terminal` approved `network: true` unasked.
	if networkRequested(p) || authoredWithNetwork(p.entry) {
		return true
	}
	for _, s := range p.assess.Subjects {
		if s.Command != nil && len(s.Command.EnvKeys) > 0 {
			return true
		}
		// The host's state and configuration directory is the
		// operator's: a core's rule (`allow:read_file:**` in an
		// agent.yaml) read the socket's token unasked. So is a
		// credential-like path (seed 000: a sensitive read asks): a
		// core's `allow:read_file` read ~/.ssh/id_ed25519 and the
		// workspace's .env unasked into the model's context.
		// A path outside the workspace is too (seed 000: reads outside
		// the workspace ask): a core's `allow:read_file` read
		// /etc/hostname and files in the home unasked.
		if s.State || s.Sensitive || s.Outside {
			return true
		}
	}
	return false
}

// shownArgs are the arguments as approval, card and record views show
// them: an environment overlay by its keys only (seed 000: approval and
// event views expose keys only). nil when nothing was assessed.
func (p *prepared) shownArgs() map[string]any {
	if p.assess == nil {
		return nil
	}
	return p.assess.HideEnvValues(p.args)
}

// run executes steps 5–8 for a prepared call.
func (t *Turn) run(ctx context.Context, p *prepared) Outcome {
	a := t.admit(ctx, p)
	if a.done {
		return a.out
	}
	return t.execute(ctx, p, a)
}

// admission is a call that passed its precheck and approval (done=false)
// or the outcome of one that did not (done=true).
type admission struct {
	done    bool
	out     Outcome
	inv     Invocation
	adapter Adapter
}

// admit runs the steps before any effect: the precheck and the approval.
// A batch admits its calls one at a time, in order (batch.go).
func (t *Turn) admit(ctx context.Context, p *prepared) admission {
	out := Outcome{CallID: p.call.ID, Tool: p.call.Name, Assessment: p.assess}
	refused := func(status Status, res *toolsetv1.ToolResult) admission {
		return admission{done: true, out: t.finish(ctx, p, out, status, res)}
	}
	if p.status != "" {
		return refused(p.status, errorResult(p.message))
	}
	inv := Invocation{
		ID: newInvocationID(), Tool: p.entry.Spec.Name, Args: p.argsRaw,
		Workspace: t.Workspace.Root, Grants: p.assess.Grants, Paths: resolvedPaths(p.assess),
		ArtifactRoot: t.ArtifactRoot, Session: t.Authority.Session, Turn: t.ID,
		// What the views will hide, the plugin's stream redactor hides in
		// what it persists: the arguments' values and those bound to the
		// session's earlier commands (an artifact of `cat build.log`).
		Redact:     slices.Concat(p.secretsInArgs(), t.Remembered.secrets()),
		OutputCap:  t.OutputCap,
		SkillsRoot: t.Workspace.SkillsRoot,
		Timezone:   t.Timezone,
	}
	adapter, ok := p.entry.Binding.(Adapter)
	if !ok {
		return refused(StatusFailed, errorResult(fmt.Sprintf("%s has no adapter bound; this is a host bug", p.call.Name)))
	}
	if msg := t.backgroundRefusal(p); msg != "" {
		return refused(StatusInvalidArguments, errorResult(msg))
	}
	if p.assess.Approval == catalog.ApprovalPrompt && !p.assess.Block && p.entry.Spec.Precheck {
		res, err := adapter.Precheck(ctx, inv)
		if err != nil {
			return refused(StatusFailed, errorResult(err.Error()))
		}
		if res.GetIsError() {
			return refused(StatusPrecheckFailed, res)
		}
	}
	t.raiseForSandbox(p)
	t.raiseForNetwork(p)
	if msg := t.authoredSandboxRefusal(p); msg != "" {
		return refused(StatusFailed, errorResult(msg))
	}
	verdict, err := t.approvals().Resolve(ctx, t.approvalRequest(p))
	out.Approval = verdict
	if err != nil || !verdict.Allowed {
		status := StatusDenied
		if verdict.Via == approval.ViaBlock {
			status = StatusBlocked
		}
		return refused(status, errorResult(deniedMessage(p.call.Name, verdict)))
	}
	return admission{out: out, inv: inv, adapter: adapter}
}

// approvalRequest is what the approval step decides on for p.
func (t *Turn) approvalRequest(p *prepared) approval.Request {
	// A core call's card says what it would move, and its fingerprint
	// binds to that: a session allow of one reviewed commit covers no other.
	coreReasons, coreBind := t.coreCard(p)
	fp := approvalFingerprint(p)
	if coreBind != "" {
		fp += "\x00" + coreBind
	}
	req := approval.Request{
		Tool: p.call.Name, CallID: p.call.ID, Risk: p.assess.Risk, Policy: p.assess.Approval,
		Block: p.assess.Block, Reasons: slices.Concat(p.assess.Reasons, p.command.reasons(), coreReasons), PreviewFunc: func() string { return p.preview(t.redactionValues()) },
		Fingerprint: fp, Authority: t.Authority, SessionAllowable: p.command.sessionAllowable() && !networkRequested(p) && !operatorScopeRequested(p),
		Subjects: p.assess.Subjects, OperatorOnly: p.operatorOnly(), Sandbox: t.sandboxCardLine(p),
		Action: evolveAction(p),
		Shown: func(s string) string {
			return redact.TextOf(s, slices.Concat(p.secretsInArgs(), p.command.secrets(), t.redactionValues()))
		},
	}
	// Only a file write has an edit to show (fileEdit is nil for any
	// other call).
	if _, s := p.fileWriteSubject(); s != nil {
		req.EditFunc = func() *approval.FileEdit { return p.fileEdit(t.redactionValues()) }
	}
	return req
}

// execute runs an admitted call: its effects, then its audit record.
func (t *Turn) execute(ctx context.Context, p *prepared, a admission) Outcome {
	out, inv, adapter := a.out, a.inv, a.adapter
	if err := p.command.apply(&inv, time.Now()); err != nil {
		return t.finish(ctx, p, out, StatusFailed, errorResult(fmt.Sprintf("%s: %v", p.call.Name, err)))
	}
	if err := t.applySandbox(p, out.Approval.Via, &inv); err != nil {
		return t.finish(ctx, p, out, StatusFailed, errorResult(fmt.Sprintf("%s: %v", p.call.Name, err)))
	}
	if err := t.applyAuthoredSandbox(p, &inv); err != nil {
		p.command.closeEgress()
		p.closeAuthoredEgress()
		return t.finish(ctx, p, out, StatusFailed, errorResult(fmt.Sprintf("%s: %v", p.call.Name, err)))
	}
	if backgroundRequested(p) {
		return t.startBackground(ctx, p, out, adapter, inv)
	}
	// A foreground command has ended when Invoke returns: its proxy ends
	// with it, before the audit that lists its connections.
	defer p.command.closeEgress()
	defer p.closeAuthoredEgress()
	inv.Hooks = t.hooks(p, out.Approval)
	inv.Progress = t.OnEvent != nil
	live := t.outputStream(p)
	inv.OnEvent = func(ev *toolsetv1.InvokeEvent) error {
		if a := ev.GetArtifact(); a != nil {
			if _, err := t.registerArtifact(ctx, p.call.ID, p.call.Name, "", a); err != nil {
				return err
			}
		}
		if t.OnEvent != nil {
			e := eventOf(ev)
			if e.Progress != "" {
				// A progress message is the tool's text, shown as it
				// comes: redacted as the call's views are.
				e.Progress = redact.TextOf(e.Progress, slices.Concat(p.secretsInArgs(), p.command.secrets(), t.redactionValues()))
			}
			t.OnEvent(p.call.ID, e)
		}
		live.event(ev)
		return nil
	}
	flush := p.command.redactEvents(&inv, t.redactionValues())
	// The file as it is before the write, for the outcome's diff.
	edit := p.fileEdit(t.redactionValues())
	if err := p.bindWriteToBase(&inv); err != nil {
		return t.finish(ctx, p, out, StatusToolError, errorResult(fmt.Sprintf("%s: %v", p.call.Name, err)))
	}
	res, err := adapter.Invoke(ctx, inv)
	flush()
	live.close()
	p.command.closeEgress()
	if err != nil {
		return t.finish(ctx, p, out, StatusFailed, errorResult(err.Error()))
	}
	status := StatusOK
	if res.GetIsError() {
		status = StatusToolError
	} else {
		out.Edit = edit
	}
	return t.finish(ctx, p, out, status, res)
}

// hooks answer a running call's HostServices requests: an effect
// capability is granted only if the tool declared it and the session holds
// it (or the operator's path grants give it to this authored tool); the
// singular gate was checked before the call started.
func (t *Turn) hooks(p *prepared, verdict approval.Outcome) plugins.Hooks {
	declared := p.entry.Effective.Capabilities
	hk := plugins.Hooks{
		Capability: func(ctx context.Context, c string, require bool) (bool, string) {
			switch {
			case !slices.Contains(declared, c):
				return false, fmt.Sprintf("%s did not declare %s in its capabilities", p.call.Name, c)
			case !t.Authority.Capabilities.Has(c) && !p.entry.HostGranted(c):
				return false, fmt.Sprintf("%s is not granted to this session", c)
			}
			return true, ""
		},
		Deliver: func(ctx context.Context, text string) error {
			if t.Deliver == nil {
				return errors.New("this turn takes no delivered output")
			}
			return t.Deliver(ctx, p.call.Name, text)
		},
		Tasks:        t.taskHooksFor(),
		Tools:        t.toolListing,
		Capabilities: t.SearchCapabilities,
	}
	t.conversationHooks(p, verdict, &hk)
	t.delegateHook(p, &hk)
	if p.isAuthored() {
		hk.Agents = t.agentHooks(p.call.Name, p.call.ID, declared, &p.heard)
	}
	t.scheduleHook(p, &hk)
	t.coreHook(p, verdict, &hk)
	return hk
}

// checkArtifact refuses an artifact a plugin reports outside the root the
// host derived for this turn: a plugin names files, the host decides which
// of them it will hand out.
func (t *Turn) checkArtifact(path string) error {
	if t.ArtifactRoot == "" {
		return fmt.Errorf("reported an artifact, but this turn has no artifact root")
	}
	rel, err := filepath.Rel(t.ArtifactRoot, filepath.Clean(path))
	if err != nil || !filepath.IsAbs(path) || rel == ".." || strings.HasPrefix(rel, "../") {
		return fmt.Errorf("reported an artifact outside its artifact root: refused")
	}
	return nil
}

func (t *Turn) approvals() *approval.Resolver {
	if t.Approvals == nil {
		return &approval.Resolver{}
	}
	return t.Approvals
}

func (t *Turn) maxCalls() int {
	if t.MaxCalls > 0 {
		return t.MaxCalls
	}
	return DefaultMaxCalls
}

func errorResult(msg string) *toolsetv1.ToolResult {
	return &toolsetv1.ToolResult{IsError: true, Content: msg}
}

func deniedMessage(tool string, v approval.Outcome) string {
	switch v.Via {
	case approval.ViaBlock:
		return fmt.Sprintf("%s was blocked: %s. Do not retry this call.", tool, blockedWhy(v.Reason))
	case approval.ViaPolicy:
		return fmt.Sprintf("%s is not allowed: %s", tool, v.Reason)
	}
	if v.Reason != "" {
		return fmt.Sprintf("%s was not approved: %s. Do not retry it unchanged.", tool, v.Reason)
	}
	return fmt.Sprintf("%s was not approved. Do not retry it unchanged.", tool)
}

func newInvocationID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	id := [len("inv_") + 2*len(b)]byte{'i', 'n', 'v', '_'}
	hex.Encode(id[len("inv_"):], b[:])
	return string(id[:]) // one allocation, not two
}
