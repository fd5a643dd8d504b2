package approval

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"demiurge.dev/catalog"
)

// Resolver decides on calls. Its zero value refuses every call that is not
// auto: no provider means DenyAll, no session store means no session
// allows.
type Resolver struct {
	Provider Provider
	Rules    []Rule
	Sessions *SessionAllows
	Now      func() time.Time
}

// Resolve decides on one call, in this order:
//
//  1. a block refuses (Via block) before anything else is consulted;
//  2. a deny policy refuses (Via policy), as does a policy outside the
//     lattice;
//  3. a matching deny rule refuses (Via rule);
//  4. an auto policy allows (Via auto);
//  5. a matching allow rule allows (Via rule);
//  6. a live session allow for the same authority, tool and subjects
//     allows (Via session), when the request is session-allowable;
//  7. the provider is asked: allow once or for the session (Via prompt),
//     or deny (Via deny). "For the session" is recorded only when the
//     request is session-allowable; otherwise it counts as once.
//
// A provider error refuses the call with the error as the reason. The
// returned error is non-nil only when ctx ended while waiting; the Outcome
// is then a refusal too.
func (r *Resolver) Resolve(ctx context.Context, req Request) (Outcome, error) {
	if req.Block {
		return refuse(ViaBlock, "blocked", req.Reasons), nil
	}
	if req.Policy != catalog.ApprovalAuto && req.Policy != catalog.ApprovalPrompt {
		return refuse(ViaPolicy, fmt.Sprintf("%s is not allowed by policy", req.Tool), req.Reasons), nil
	}
	for _, rule := range r.Rules {
		if !rule.Allow && rule.Matches(req) {
			return Outcome{Via: ViaRule, Reason: "denied by rule " + ruleName(rule)}, nil
		}
	}
	if req.Policy == catalog.ApprovalAuto {
		return Outcome{Allowed: true, Via: ViaAuto, Reason: "approval policy is auto", Scope: ScopeOnce}, nil
	}
	for _, rule := range r.Rules {
		if rule.Allow && rule.Matches(req) {
			return Outcome{Allowed: true, Via: ViaRule, Reason: "allowed by rule " + ruleName(rule), Scope: ScopeOnce}, nil
		}
	}
	now := r.now()
	sessionable := req.SessionAllowable && r.Sessions != nil && req.Fingerprint != ""
	if sessionable {
		if a, ok := r.Sessions.Covers(now, req); ok {
			return Outcome{Allowed: true, Via: ViaSession, Scope: ScopeSession,
				Reason: "allowed for this session until " + a.Expires.Format(time.TimeOnly)}, nil
		}
	}
	return r.ask(ctx, req, sessionable)
}

func (r *Resolver) ask(ctx context.Context, req Request, sessionable bool) (Outcome, error) {
	p := r.Provider
	if p == nil {
		p = DenyAll{}
	}
	if !sessionable {
		// The provider should not offer what will not be kept.
		req.SessionAllowable = false
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
	if isDenyAll(p) {
		reason = "needs approval, and no one can answer here; run in a terminal or pass --approve allow:" + req.Tool
	}
	return Outcome{Via: ViaDeny, Reason: reason}, nil
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
