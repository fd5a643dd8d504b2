package approval

import (
	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
)

// Request is one call waiting for an approval decision.
type Request struct {
	Tool   string
	CallID string
	Risk   catalog.Risk
	Policy catalog.ApprovalPolicy
	// Block refuses the call before any rule or provider is consulted.
	Block   bool
	Reasons []string
	// Preview is a length-limited, redacted rendering of the arguments.
	Preview string
	// PreviewFunc renders Preview when it is empty. Resolve calls it only
	// when a provider is asked, so a call decided by its policy, a rule
	// or a session allow never pays for a rendering no one reads.
	PreviewFunc func() string
	// Fingerprint identifies the tool and its resolved subjects
	// (policy.Assessment.Fingerprint).
	Fingerprint string
	Authority   policy.Authority
	// SessionAllowable says whether an "allow for session" may cover this
	// call and later ones with the same fingerprint.
	SessionAllowable bool
	// SessionDeniable says whether the provider may offer "deny for
	// session": the outcome is then a refusal of ScopeSession, which the
	// caller remembers for the session (the resolver keeps no denials).
	SessionDeniable bool
	Subjects        []policy.SubjectFact
	// OperatorOnly asks for an explicit approval, as a command the shell
	// guard did not allow does: the operator's command-line rule, a
	// session allow or the provider's answer, never an auto policy or a
	// core's standing rule (which the agent may have written). Starting
	// an MCP server, a program of the core's choosing, asks this way.
	OperatorOnly bool
	// Sandbox says, for a call that starts a command, the sandbox mode it
	// runs in once approved and its network reach; the card shows it.
	Sandbox string
	// Action is the call's action key for a tool whose approval is per
	// action (evolve_core: "start", "review/RUN", "promote/RUN",
	// "discard/RUN"). A rule's glob matches it instead of path subjects,
	// a bare allow rule matches no such call, and the caller folds it into
	// Fingerprint: an allow of one action never covers another.
	Action string
	// EditFunc, when set (a file write), gives what the write does to its
	// file (nil when it cannot be shown); a provider that shows diffs
	// calls it.
	EditFunc func() *FileEdit
	// Shown, when set, is what an approver may see of a text the request
	// carries from the call (a subject's value or path, a reason): the
	// call's secrets replaced as its views replace them. Rules and
	// checks decide on the texts themselves; only what is shown passes
	// through it (ShownText, ShownSubjects).
	Shown func(string) string
}

// ShownText is s as an approver may see it (Request.Shown).
func (r Request) ShownText(s string) string {
	if r.Shown == nil {
		return s
	}
	return r.Shown(s)
}

// ShownSubjects are the subjects with their texts as an approver may see
// them (a copy; the request's own are left as they are).
func (r Request) ShownSubjects() []policy.SubjectFact {
	if r.Shown == nil {
		return r.Subjects
	}
	out := make([]policy.SubjectFact, len(r.Subjects))
	for i, s := range r.Subjects {
		s.Value, s.Resolved = r.Shown(s.Value), r.Shown(s.Resolved)
		if s.Command != nil {
			c := *s.Command
			c.ProtectedWrites = make([]string, len(s.Command.ProtectedWrites))
			for j, w := range s.Command.ProtectedWrites {
				c.ProtectedWrites[j] = r.Shown(w)
			}
			s.Command = &c
		}
		out[i] = s
	}
	return out
}

// ShownReasons are the reasons as an approver may see them.
func (r Request) ShownReasons() []string {
	if r.Shown == nil {
		return r.Reasons
	}
	out := make([]string, len(r.Reasons))
	for i, s := range r.Reasons {
		out[i] = r.Shown(s)
	}
	return out
}

// Target is what an allow rule for req names: TOOL, or TOOL:ACTION for a
// call with an action key.
func (r Request) Target() string {
	if r.Action != "" {
		return r.Tool + ":" + r.Action
	}
	return r.Tool
}

// Via values say which step of Resolve decided.
const (
	ViaAuto    = "auto"
	ViaRule    = "rule"
	ViaSession = "session"
	ViaPrompt  = "prompt"
	ViaDeny    = "deny"
	ViaBlock   = "block"
	ViaPolicy  = "policy"
	// ViaLease: a run no one attends (a scheduled run) was decided by the
	// lease the operator approved for it (Resolver.Unattended).
	ViaLease = "lease"
)

// Scope values say how far an allow reaches.
const (
	ScopeOnce    = "once"
	ScopeSession = "session"
)

// Outcome is the decision on one Request.
type Outcome struct {
	Allowed bool `json:"allowed"`
	// Via is one of the Via constants.
	Via    string `json:"via"`
	Reason string `json:"reason,omitempty"`
	// Scope is ScopeOnce or ScopeSession for an allow; for a refusal it is
	// empty, or ScopeSession when the answer was "deny for session".
	Scope string `json:"scope,omitempty"`
}
