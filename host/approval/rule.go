package approval

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/shared/pathrules"
)

// RuleSyntax is the one-line description of a rule, for usage texts.
const RuleSyntax = "ACTION:TOOL or ACTION:TOOL:GLOB, with ACTION allow, prompt or deny"

// RuleAction is what a rule does to the calls it matches.
type RuleAction string

const (
	RuleAllow  RuleAction = "allow"
	RulePrompt RuleAction = "prompt"
	RuleDeny   RuleAction = "deny"
)

// A Rule is an operator's standing decision, from an --approve flag or the
// core's approval rules. The forms are:
//
//	allow:TOOL         every call of TOOL whose policy is prompt is allowed;
//	                   the operator's (Explicit) includes reads outside the
//	                   workspace and of credential-like paths, so prefer a
//	                   GLOB; a core's never approves those (the dispatcher
//	                   marks them Request.OperatorOnly).
//	allow:TOOL:GLOB    a call of TOOL is allowed when it has at least one
//	                   path subject, every path subject lies inside the
//	                   workspace, and each one's workspace-relative path,
//	                   after following symlinks, matches GLOB. A call with
//	                   a command or url subject never matches.
//	prompt:TOOL        every call of TOOL is put to the approval provider,
//	                   even when its policy is auto or an allow rule or a
//	                   session allow would cover it; "allow for session"
//	                   counts as once.
//	prompt:TOOL:GLOB   the same for a call of which any path subject lies
//	                   inside the workspace and matches GLOB.
//	deny:TOOL          every call of TOOL is refused.
//	deny:TOOL:GLOB     a call of TOOL is refused when any of its path
//	                   subjects lies inside the workspace and matches GLOB,
//	                   as written or after following symlinks (the same
//	                   holds for prompt:TOOL:GLOB).
//
// A tool whose calls carry an action key (Request.Action: evolve_core's
// start, review/RUN, promote/RUN, discard/RUN) is matched on that key
// instead of path subjects: allow:evolve_core:promote/run_… approves
// that one promote, and allow:TOOL without a GLOB approves none of its
// calls, while deny:TOOL and prompt:TOOL still cover them all.
//
// TOOL is an exact tool name as catalog.ValidToolName accepts it; there is
// no tool wildcard. GLOB is a slash-separated, workspace-relative pattern with
// path.Match syntax per segment (*, ?, [a-z], \ escapes; '*' also matches
// a leading dot) plus "**" as a whole segment, matching zero or more
// segments: "src/**" matches src, src/a.go and src/x/y.go; "**/*.md"
// matches README.md and docs/a.md. GLOB may not be absolute, contain "."
// or ".." segments, or be empty. The workspace root itself has zero
// segments, so only a glob of "**" segments matches it.
//
// An allow rule only ever turns a prompt into an allow; a deny policy or a
// block stays refused. Only an explicit allow rule (Explicit) approves a
// command the shell guard asks about, an environment overlay, a secret
// binding or an MCP server's start (Request.OperatorOnly); a rule from a
// core does not. A write to a protected path (SubjectFact.Protected: the
// core, git's program-running files) is approved only by an explicit
// allow rule whose GLOB is that exact path, never by a pattern. A deny
// rule wins over everything else, a prompt rule over every allow.
type Rule struct {
	Action RuleAction
	Tool   string
	// Glob is empty for a rule about every call of Tool.
	Glob string
	// Origin says where the rule came from ("--approve", "agent.yaml:14"),
	// for reasons and diagnostics; ParseRule leaves it empty.
	Origin string

	segments []string
}

// OriginCommandLine is the Origin of rules the operator gave with
// --approve for one run.
const OriginCommandLine = "--approve"

// Explicit reports whether the rule is the operator's own, given on the
// command line for this run, rather than a standing rule from a core
// (which the agent may have written): only such a rule may approve a
// command the shell guard asks about.
func (r Rule) Explicit() bool { return r.Origin == OriginCommandLine || r.Origin == OriginOperatorFile }

// ParseRule reads one rule; see Rule for the syntax.
func ParseRule(s string) (Rule, error) {
	text := strings.TrimSpace(s)
	if text == "" {
		return Rule{}, fmt.Errorf("approval rule is empty; write %s", RuleSyntax)
	}
	action, rest, ok := strings.Cut(text, ":")
	if !ok {
		return Rule{}, fmt.Errorf("approval rule %q has no tool; write %s", text, RuleSyntax)
	}
	r := Rule{Action: RuleAction(action)}
	switch r.Action {
	case RuleAllow, RulePrompt, RuleDeny:
	default:
		return Rule{}, fmt.Errorf("approval rule %q: action %q is unknown; want allow, prompt or deny", text, action)
	}
	tool, glob, hasGlob := strings.Cut(rest, ":")
	if err := catalog.ValidToolName(tool); err != nil {
		return Rule{}, fmt.Errorf("approval rule %q: %w; rules name one exact tool, no wildcards", text, err)
	}
	r.Tool = tool
	if hasGlob {
		segs, err := parseGlob(glob)
		if err != nil {
			return Rule{}, fmt.Errorf("approval rule %q: %w", text, err)
		}
		r.Glob, r.segments = glob, segs
	}
	return r, nil
}

func parseGlob(glob string) ([]string, error) {
	switch {
	case glob == "":
		return nil, errors.New("the path glob after the tool is empty; drop the second ':' or give a pattern like src/**")
	case strings.HasPrefix(glob, "/"):
		return nil, fmt.Errorf("path glob %q is absolute; globs are relative to the workspace", glob)
	case strings.ContainsRune(glob, 0):
		return nil, errors.New("path glob contains a NUL byte")
	}
	segs := strings.Split(glob, "/")
	for _, seg := range segs {
		switch {
		case seg == "":
			return nil, fmt.Errorf("path glob %q has an empty segment (a doubled or trailing '/')", glob)
		case seg == "." || seg == "..":
			return nil, fmt.Errorf("path glob %q has a %q segment; write the path from the workspace root", glob, seg)
		case seg == "**":
			continue
		case strings.Contains(seg, "**"):
			return nil, fmt.Errorf("path glob %q: ** must be a whole segment, as in src/**/x.go", glob)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return nil, fmt.Errorf("path glob %q: segment %q: %w", glob, seg, err)
		}
	}
	return segs, nil
}

// String gives the rule back in its canonical form.
func (r Rule) String() string {
	s := string(r.Action) + ":" + r.Tool
	if r.Glob != "" {
		s += ":" + r.Glob
	}
	return s
}

// Matches reports whether the rule speaks about req (see Rule for what an
// allow glob and a prompt or deny glob require). A rule with an unknown
// action matches nothing.
func (r Rule) Matches(req Request) bool {
	allow := r.Action == RuleAllow
	if r.Tool != req.Tool || (!allow && r.Action != RulePrompt && r.Action != RuleDeny) {
		return false
	}
	if req.Action != "" {
		return r.matchesAction(req.Action)
	}
	if r.Glob == "" {
		return true
	}
	if r.segments == nil {
		// A Rule built by hand rather than parsed: parse its glob now,
		// and match nothing if it is malformed.
		segs, err := parseGlob(r.Glob)
		if err != nil {
			return false
		}
		r.segments = segs
	}
	paths := 0
	for _, s := range req.Subjects {
		if s.Kind != string(catalog.SubjectPath) {
			if allow {
				return false
			}
			continue
		}
		paths++
		lexical := s.Inside && pathrules.MatchSegments(r.segments, relSegments(s.Rel))
		real := lexical
		if s.Real != "" {
			real = s.RealInside && pathrules.MatchSegments(r.segments, relSegments(s.RealRel))
		}
		// An allow glob must hold where the call really lands, and the
		// path must not be led out of the workspace; a deny or prompt
		// glob holds if either spelling matches, so that a symlink can
		// neither walk around a deny nor into an allow.
		if allow && !(real && (s.Real == "" || s.Inside)) {
			return false
		}
		if !allow && (lexical || real) {
			return true
		}
	}
	return allow && paths > 0
}

// matchesAction matches a rule against a call's action key: a glob
// against its segments ("promote/run_…"); a bare deny or prompt rule
// matches every action, a bare allow none, so that an allow names the
// action it approves (seed 000: approval rules are isolated per action).
func (r Rule) matchesAction(action string) bool {
	if r.Glob == "" {
		return r.Action != RuleAllow
	}
	segs := r.segments
	if segs == nil {
		var err error
		if segs, err = parseGlob(r.Glob); err != nil {
			return false
		}
	}
	return pathrules.MatchSegments(segs, strings.Split(action, "/"))
}

func relSegments(rel string) []string {
	if rel == "." || rel == "" {
		return nil
	}
	return strings.Split(rel, "/")
}
