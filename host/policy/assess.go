package policy

import (
	"fmt"
	"slices"

	"demiurge.dev/catalog"
	"demiurge.dev/shared/pathrules"
)

// Assessment is what the host concluded about one call before approval.
type Assessment struct {
	Risk     catalog.Risk
	Approval catalog.ApprovalPolicy
	// Block refuses the call before any approval provider is asked.
	Block   bool
	Reasons []string
	// Subjects are the facts derived from each declared subject, in
	// declaration order.
	Subjects []SubjectFact
	// ResourceKeys name what the call touches, for batch scheduling.
	ResourceKeys []string
	// Grants are the paths outside the workspace the plugin may read if
	// the call is approved.
	Grants []PathGrant
	// ReadOnly is true when the tool's effect is read and no subject is
	// written.
	ReadOnly bool
	// Fingerprint identifies the call's tool and resolved subjects, so
	// that a session allow for one path does not approve another.
	Fingerprint string
}

// SubjectFact is one declared subject with what the host derived from it.
type SubjectFact struct {
	Kind string
	Arg  string
	// Value is the argument as the model gave it.
	Value string
	// Resolved is the absolute cleaned path (path subjects) or the real
	// working directory (command subjects).
	Resolved string
	// Rel is Resolved relative to the workspace root, slash-separated;
	// empty when outside. Approval rules match their globs against it.
	Rel    string
	Inside bool
	// Real, RealRel and RealInside are the path subject's Resolved after
	// following symlinks (policy.Workspace.Real): where the call will
	// really reach. Approval rules match their allow globs only against
	// RealRel, and deny and prompt globs against either form, so that a
	// symlink cannot walk around a rule. Empty for other kinds.
	Real       string
	RealRel    string
	RealInside bool
	Sensitive  bool
	// Protected is set for a write to the active core or to git's
	// program-running files (Workspace.ProtectedWhy): no broad rule
	// covers it, only the operator's answer or an --approve rule that
	// names the exact path.
	Protected bool
	// State is set for a path in the host's state or configuration
	// directory (the store, the socket's token, the core repository, the
	// operator's files): the operator's alone, so only the operator
	// approves a call that reaches it, never a core's rule.
	State bool
	// Outside is set for a path subject that lies outside the workspace,
	// as written or as its symlinks lead (a skill's file under the core's
	// skills root is not one): a core's rule answers only what a
	// workspace-scoped prompt would, so only the operator approves it.
	Outside bool
	Access  catalog.Access
	// Command holds the rest of a command subject's facts (see
	// assess_command.go); nil for other kinds.
	Command *CommandFact
}

// PathGrant lets a plugin reach one path outside the workspace.
type PathGrant struct {
	Path   string
	Access catalog.Access
}

// ResourceKeyFS prefixes the resource key of a file-system path.
const ResourceKeyFS = "fs:"

// Assess derives risk, approval, reasons, resource keys, grants and the
// call fingerprint from a tool's declared subjects and its effective
// metadata. It only ever raises the effective policy. A subject argument
// that is missing or not a string is an error: the schema should have
// caught it, and guessing would fail open.
func Assess(spec catalog.ToolSpec, effective catalog.Metadata, args map[string]any, ws Workspace) (Assessment, error) {
	if err := ws.validate(); err != nil {
		return Assessment{}, fmt.Errorf("assess %s: %w", spec.Name, err)
	}
	a := Assessment{Risk: effective.Risk, Approval: effective.ApprovalPolicy}
	// Values outside the lattice are treated as the strictest.
	if a.Risk < catalog.RiskLow || a.Risk > catalog.RiskHigh {
		a.Risk = catalog.RiskHigh
	}
	if a.Approval < catalog.ApprovalAuto || a.Approval > catalog.ApprovalDeny {
		a.Approval = catalog.ApprovalDeny
	}
	// A tool whose registry lets literal commands run unasked starts from
	// low/auto; every command subject then raises it with what the guard
	// and the shape assessment found, and a tool without one goes back to
	// its registry policy (literalCommandsOnly).
	literal := effective.LiteralCommandsAuto && a.Approval == catalog.ApprovalPrompt
	if literal {
		a.Risk, a.Approval = catalog.RiskLow, catalog.ApprovalAuto
	}
	commands := 0
	// The fingerprint's fields gather on the stack (a heap buffer of 256
	// bytes of every call before); a long call's outgrow it.
	var fpBuf [256]byte
	fp := appendFields(fpBuf[:0], "demiurge.call.v1", spec.Name)
	writes := false
	for _, s := range spec.Subjects {
		raw, ok := args[s.Arg]
		if !ok {
			return Assessment{}, fmt.Errorf("argument %q is missing; %s needs it (its %s subject)", s.Arg, spec.Name, s.Kind)
		}
		value, ok := raw.(string)
		if !ok {
			return Assessment{}, fmt.Errorf("argument %q must be a string, got %T", s.Arg, raw)
		}
		fact := SubjectFact{Kind: string(s.Kind), Arg: s.Arg, Value: value}
		switch s.Kind {
		case catalog.SubjectPath:
			if err := a.assessPath(&fact, s, ws); err != nil {
				return Assessment{}, fmt.Errorf("argument %q: %w", s.Arg, err)
			}
			writes = writes || s.Access == catalog.AccessWrite
			// The real path too: an allow for alias/x is not one for
			// wherever alias points next.
			fp = appendFields(fp, fact.Kind, fact.Arg, string(fact.Access), fact.Resolved, fact.Real)
		case catalog.SubjectCommand:
			var err error
			if fp, err = a.assessCommand(&fact, s, args, ws, fp); err != nil {
				return Assessment{}, err
			}
			commands++
			if literal && fact.Command.Background {
				a.raise(catalog.RiskMedium, catalog.ApprovalPrompt, "runs in the background; only foreground literal commands run unasked")
			}
		case catalog.SubjectURL:
			fp = appendFields(fp, fact.Kind, fact.Arg, "", a.assessURL(&fact))
		case catalog.SubjectSkill:
			if err := a.assessSkill(&fact, s, args, ws); err != nil {
				return Assessment{}, fmt.Errorf("argument %q: %w", s.Arg, err)
			}
			writes = writes || fact.Access == catalog.AccessWrite
			fp = appendFields(fp, fact.Kind, fact.Arg, string(fact.Access), fact.Resolved, fact.Real)
		default:
			return Assessment{}, fmt.Errorf("tool %s declares subject %q of unknown kind %q; the host cannot assess it", spec.Name, s.Arg, s.Kind)
		}
		a.Subjects = append(a.Subjects, fact)
	}
	if literal && commands == 0 {
		a.raise(effective.Risk, effective.ApprovalPolicy, "no command to review; the tool's registry approval applies")
	}
	a.ReadOnly = spec.Effect == catalog.EffectRead && !writes
	a.Fingerprint = digestHex(fp)
	return a, nil
}

func (a *Assessment) assessPath(fact *SubjectFact, s catalog.Subject, ws Workspace) error {
	if s.Access != catalog.AccessRead && s.Access != catalog.AccessWrite {
		return fmt.Errorf("path subject has access %q; want read or write", s.Access)
	}
	rp, err := ws.Resolve(fact.Value)
	if err != nil {
		return err
	}
	fact.Resolved, fact.Inside, fact.Rel, fact.Access = rp.Abs, rp.Inside, rp.Rel, s.Access
	real := ws.Real(rp.Abs)
	fact.Real, fact.RealRel, fact.RealInside = real.Abs, real.Rel, real.Inside
	// Relative to the root, so that a workspace under a directory that
	// happens to look sensitive does not flag every file in it; both as
	// written and as the symlinks lead.
	// (The second check only when the symlinks led elsewhere: it is a pure
	// function of the same three values otherwise.)
	fact.Sensitive = sensitivePath(rp.Abs, rp.Rel, rp.Inside) ||
		((real.Abs != rp.Abs || real.Rel != rp.Rel || real.Inside != rp.Inside) && sensitivePath(real.Abs, real.Rel, real.Inside))
	inState := ws.inState(rp.Abs, real.Abs)
	fact.Sensitive = fact.Sensitive || inState
	fact.State = inState
	a.addKey(ResourceKeyFS + rp.Abs)

	shown := rp.Rel
	if !rp.Inside {
		shown = rp.Abs
	}
	if inState {
		// The store, the snapshots, the installed plugins: the host's.
		if s.Access == catalog.AccessWrite {
			a.raise(catalog.RiskHigh, catalog.ApprovalDeny, "writes "+shown+", in the host's state or configuration directory; refused")
		} else {
			a.raise(catalog.RiskHigh, catalog.ApprovalPrompt, "reads "+shown+", in the host's state or configuration directory")
		}
	}
	if s.Access == catalog.AccessWrite {
		if why := ws.protectedWhy(rp.Abs, real); why != "" {
			fact.Protected = true
			a.raise(catalog.RiskHigh, catalog.ApprovalPrompt, "writes "+shown+": "+why+"; this write changes what the agent may do, so only the operator's answer or an --approve rule naming this exact path approves it")
		}
	}
	// Lexically inside but led outside by a symlink.
	escapes := rp.Inside && !real.Inside
	fact.Outside = !rp.Inside || !real.Inside
	switch s.Access {
	case catalog.AccessRead:
		switch {
		case !rp.Inside:
			a.raise(catalog.RiskMedium, catalog.ApprovalPrompt, "reads "+shown+", outside the workspace")
			a.addGrant(PathGrant{Path: rp.Abs, Access: catalog.AccessRead})
		case escapes:
			a.raise(catalog.RiskMedium, catalog.ApprovalPrompt, "reads "+shown+", which a symlink leads outside the workspace")
		}
		if fact.Sensitive {
			a.raise(catalog.RiskHigh, catalog.ApprovalPrompt, "reads "+shown+", a credential-like path")
		}
	case catalog.AccessWrite:
		switch {
		case !rp.Inside || escapes:
			a.raise(catalog.RiskHigh, catalog.ApprovalDeny, "writes outside the workspace are refused")
		case fact.Sensitive:
			a.raise(catalog.RiskHigh, catalog.ApprovalPrompt, "writes "+shown+", a credential-like path")
		default:
			// Every write asks unless a rule or the operator allows it;
			// a plugin cannot declare writes auto.
			a.raise(catalog.RiskMedium, catalog.ApprovalPrompt, "writes "+shown)
		}
	}
	return nil
}

func sensitivePath(abs, rel string, inside bool) bool {
	if inside {
		return pathrules.IsSensitive(rel)
	}
	return pathrules.IsSensitive(abs)
}

// raise makes the assessment at least as strict as risk and approval and
// records why.
// Raise makes the assessment at least as strict as risk and approval, for
// what the caller found beyond the declared subjects (dispatch: a secret
// binding). Like every step of assessment it never lowers anything.
func (a *Assessment) Raise(risk catalog.Risk, approval catalog.ApprovalPolicy, reason string) {
	a.raise(risk, approval, reason)
}

func (a *Assessment) raise(risk catalog.Risk, approval catalog.ApprovalPolicy, reason string) {
	a.Risk = catalog.MaxRisk(a.Risk, risk)
	a.Approval = catalog.MaxApproval(a.Approval, approval)
	if !slices.Contains(a.Reasons, reason) {
		a.Reasons = append(a.Reasons, reason)
	}
}

func (a *Assessment) addKey(k string) {
	if !slices.Contains(a.ResourceKeys, k) {
		a.ResourceKeys = append(a.ResourceKeys, k)
	}
}

func (a *Assessment) addGrant(g PathGrant) {
	if !slices.Contains(a.Grants, g) {
		a.Grants = append(a.Grants, g)
	}
}
