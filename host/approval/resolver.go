package approval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/policy/shellguard"
)

// Resolver decides on calls. Its zero value refuses every call that is not
// auto: no provider means DenyAll, no session store means no session
// allows.
type Resolver struct {
	Provider Provider
	Rules    []Rule
	Sessions *SessionAllows
	Now      func() time.Time
	// Unattended, when set, is the only approval of a run no one attends
	// (a scheduled run): the lease the operator approved for it. After
	// the block, deny-policy and deny-rule steps it decides alone: no
	// auto policy, standing rule, session allow or provider widens it,
	// and a protected write is never approved.
	Unattended func(req Request) (allowed bool, reason string)
	// AlwaysAsk are tools whose every call only the provider's answer
	// approves, by name, each with the sandbox line its card shows
	// instead of the host's (the editor's terminal: its commands run in
	// the editor, outside Demiurge's sandbox). After the block,
	// deny-policy and deny-rule steps the provider is asked, once per
	// call: no auto policy, rule (not even the operator's), session allow
	// or lease approves it.
	AlwaysAsk map[string]string
	// OperatorFile, when set, is the operator's approvals file read at
	// each decision: its rules replace those of Rules whose Origin is
	// OriginOperatorFile, and a file that cannot be read as the
	// operator's refuses the call (a long-lived host).
	OperatorFile *LiveOperatorFile
}

// Resolve decides on one call, in this order:
//
//  1. a block refuses (Via block) before anything else is consulted;
//  2. a deny policy refuses (Via policy), as does a policy outside the
//     lattice;
//  3. a matching deny rule refuses (Via rule);
//  4. a matching prompt rule goes straight to the provider (step 7), with
//     no session allow recorded or used;
//  5. an auto policy allows (Via auto);
//  6. a matching allow rule allows (Via rule);
//
// For a call with a command subject that the shell guard did not allow,
// step 5 is skipped and step 6 takes only an explicit rule (one the
// operator gave on the command line for this run): an auto fallback or a
// standing rule from a core never lowers the guard's verdict. Such a call
// runs only on an explicit approval: that rule, a session allow for the
// same fingerprint, or the provider's answer. A command the guard blocks
// is refused at step 1 even if req.Block was not set. A request marked
// OperatorOnly is treated as such a call.
//  7. a live session allow for the same authority, tool and subjects
//     allows (Via session), when the request is session-allowable;
//  8. the provider is asked: allow once or for the session (Via prompt),
//     or deny (Via deny). "For the session" is recorded only when the
//     request is session-allowable; otherwise it counts as once.
//
// A provider error refuses the call with the error as the reason. The
// returned error is non-nil only when ctx ended while waiting; the Outcome
// is then a refusal too.
func (r *Resolver) Resolve(ctx context.Context, req Request) (Outcome, error) {
	r, err := r.withOperatorFile()
	if err != nil {
		return Outcome{Via: ViaPolicy, Reason: "the operator's approvals file cannot be read as the operator's, so no call is decided without it: " + err.Error()}, nil
	}
	guarded, blocked := guardVerdict(req.Subjects)
	guarded = guarded || req.OperatorOnly
	if req.Block || blocked {
		return refuse(ViaBlock, "blocked", req.Reasons), nil
	}
	if req.Policy != catalog.ApprovalAuto && req.Policy != catalog.ApprovalPrompt {
		// deniedMessage names the tool: "TOOL is not allowed: its approval policy is deny: ...".
		return refuse(ViaPolicy, "its approval policy is "+req.Policy.String(), req.Reasons), nil
	}
	if rule, ok := r.firstMatch(RuleDeny, req); ok {
		return Outcome{Via: ViaRule, Reason: "denied by rule " + ruleName(rule)}, nil
	}
	if line, ok := r.AlwaysAsk[req.Tool]; ok {
		return r.askAlways(ctx, req, line)
	}
	if r.Unattended != nil {
		return r.unattended(req), nil
	}
	if rule, ok := r.firstMatch(RulePrompt, req); ok {
		return r.ask(ctx, req, false, "rule "+ruleName(rule)+" asks every time")
	}
	if paths, command := protectedWrites(req.Subjects); len(paths) > 0 || command {
		// The core and git's program-running files: only the operator's
		// answer, or (not for a command) their rule naming the exact
		// path; no session allow, no broad or standing rule.
		if !command {
			if rule, ok := r.exactAllow(req); ok {
				return Outcome{Allowed: true, Via: ViaRule, Reason: "allowed by rule " + ruleName(rule) + ", which names this exact path", Scope: ScopeOnce}, nil
			}
		}
		return r.ask(ctx, req, false, "")
	}
	if req.Policy == catalog.ApprovalAuto && !guarded {
		return Outcome{Allowed: true, Via: ViaAuto, Reason: "approval policy is auto", Scope: ScopeOnce}, nil
	}
	if rule, ok := r.allowMatch(req, guarded); ok {
		return Outcome{Allowed: true, Via: ViaRule, Reason: "allowed by rule " + ruleName(rule), Scope: ScopeOnce}, nil
	}
	sessionable := req.SessionAllowable && r.Sessions != nil && req.Fingerprint != ""
	if sessionable {
		if a, ok := r.Sessions.Covers(r.now(), req); ok {
			return Outcome{Allowed: true, Via: ViaSession, Scope: ScopeSession,
				Reason: "allowed for this session until " + a.Expires.Format(time.TimeOnly)}, nil
		}
	}
	return r.ask(ctx, req, sessionable, "")
}

// unattended decides a call of a run no one attends by its lease.
func (r *Resolver) unattended(req Request) Outcome {
	if paths, command := protectedWrites(req.Subjects); len(paths) > 0 || command {
		return Outcome{Via: ViaLease, Reason: "a scheduled run never writes the core or git's program-running files; no lease approves it"}
	}
	if ok, why := r.Unattended(req); !ok {
		return Outcome{Via: ViaLease, Reason: why}
	}
	return Outcome{Allowed: true, Via: ViaLease, Scope: ScopeOnce, Reason: "within the lease the operator approved for this scheduled run"}
}

func (r *Resolver) firstMatch(action RuleAction, req Request) (Rule, bool) {
	for _, rule := range r.Rules {
		if rule.Action == action && rule.Matches(req) {
			return rule, true
		}
	}
	return Rule{}, false
}

// allowMatch is the first allow rule that matches req and may approve it:
// for a guarded request only an explicit rule may, and a core's standing
// rule before it does not hide the operator's.
func (r *Resolver) allowMatch(req Request, guarded bool) (Rule, bool) {
	for _, rule := range r.Rules {
		if rule.Action == RuleAllow && (!guarded || rule.Explicit()) && rule.Matches(req) {
			return rule, true
		}
	}
	return Rule{}, false
}

// ask puts the call to the provider; why, when set, is added to the card's
// reasons.
func (r *Resolver) ask(ctx context.Context, req Request, sessionable bool, why string) (Outcome, error) {
	p := r.Provider
	if p == nil {
		p = DenyAll{}
	}
	if !sessionable {
		// The provider should not offer what will not be kept.
		req.SessionAllowable = false
	}
	if why != "" {
		req.Reasons = append(slices.Clone(req.Reasons), why)
	}
	if req.Preview == "" && req.PreviewFunc != nil {
		req.Preview = req.PreviewFunc()
	}
	answer, err := p.Ask(ctx, req)
	if err != nil {
		out := Outcome{Via: ViaDeny, Reason: fmt.Sprintf("approval provider %s failed: %v; the call was not run", p.Name(), err)}
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return out, fmt.Errorf("approval for %s: %w", req.Tool, ctxErr)
		}
		return out, nil
	}
	switch answer {
	case AllowOnce:
		return Outcome{Allowed: true, Via: ViaPrompt, Scope: ScopeOnce, Reason: "allowed once by " + p.Name()}, nil
	case AllowSession:
		if !sessionable {
			return Outcome{Allowed: true, Via: ViaPrompt, Scope: ScopeOnce,
				Reason: "allowed once by " + p.Name() + " (this call cannot be allowed for the session)"}, nil
		}
		a := r.Sessions.Grant(r.now(), req)
		return Outcome{Allowed: true, Via: ViaPrompt, Scope: ScopeSession,
			Reason: "allowed for this session by " + p.Name() + " until " + a.Expires.Format(time.TimeOnly)}, nil
	}
	reason := "denied by " + p.Name()
	if answer == DenySession && req.SessionDeniable {
		return Outcome{Via: ViaPrompt, Scope: ScopeSession, Reason: "denied for this session by " + p.Name()}, nil
	}
	if paths, command := protectedWrites(req.Subjects); isDenyAll(p) && (len(paths) > 0 || command) {
		reason = "this write changes what the agent may do (the agent's core, git's configuration, an MCP or ACP client's, or your home's configuration), and no one can answer here; "
		if !command {
			reason += approveHint(p, req.Tool+":"+paths[0].RealRel) + " naming the exact path (a broad rule, or a rule in a core, does not count)"
		} else {
			reason += onlyAnAnswer(p) + " (no rule covers a command that writes it)"
		}
		return Outcome{Via: ViaDeny, Reason: reason}, nil
	}
	if isDenyAll(p) {
		reason = "needs approval, and no one can answer here; " + approveHint(p, req.Target())
		if guarded, _ := guardVerdict(req.Subjects); guarded {
			reason = "the shell guard asks for an explicit approval of this command, and no one can answer here; " + approveHint(p, req.Target()) + " (a rule in a core does not count)"
		} else if req.OperatorOnly {
			reason = "this call needs the operator's own approval, and no one can answer here; " + approveHint(p, req.Target()) + " (a rule in a core does not count)"
		}
	}
	return Outcome{Via: ViaDeny, Reason: reason}, nil
}

// exactAllow is the operator's own allow rule whose glob is one exact
// path (no pattern) and matches every path subject: the one kind of rule
// that may approve a protected write.
func (r *Resolver) exactAllow(req Request) (Rule, bool) {
	for _, rule := range r.Rules {
		if rule.Action == RuleAllow && rule.Explicit() && rule.Glob != "" && !strings.ContainsAny(rule.Glob, `*?[\`) && rule.Matches(req) {
			return rule, true
		}
	}
	return Rule{}, false
}

// protectedWrites are the path subjects that write a protected path, and
// whether a command subject redirects into one.
func protectedWrites(subjects []policy.SubjectFact) (paths []policy.SubjectFact, command bool) {
	for _, s := range subjects {
		switch {
		case s.Kind == string(catalog.SubjectPath) && s.Protected:
			paths = append(paths, s)
		case s.Command != nil && len(s.Command.ProtectedWrites) > 0:
			command = true
		}
	}
	return paths, command
}

func (r *Resolver) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func refuse(via, what string, reasons []string) Outcome {
	if len(reasons) > 0 {
		what += ": " + strings.Join(reasons, "; ")
	}
	return Outcome{Via: via, Reason: what}
}

func ruleName(r Rule) string {
	if r.Origin != "" {
		return r.String() + " (" + r.Origin + ")"
	}
	return r.String()
}

func isDenyAll(p Provider) bool {
	switch p.(type) {
	case DenyAll, *DenyAll:
		return true
	}
	return false
}

// guardVerdict reads the shell guard's verdicts off the command subjects:
// guarded when any command was not allowed (or carries no verdict),
// blocked when any was blocked.
func guardVerdict(subjects []policy.SubjectFact) (guarded, blocked bool) {
	for _, s := range subjects {
		if s.Kind != string(catalog.SubjectCommand) {
			continue
		}
		if !s.GuardAllows() {
			guarded = true
		}
		if s.Command != nil && s.Command.Guard.Decision == shellguard.Block {
			blocked = true
		}
	}
	return guarded, blocked
}
