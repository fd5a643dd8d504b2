package catalog

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Diagnostic levels.
const (
	LevelWarning = "warning"
	LevelError   = "error"
)

// Diagnostic is something about the catalog an operator should know that
// does not stop it from being built, such as an override that was refused.
type Diagnostic struct {
	Tool    string `json:"tool"`
	Field   string `json:"field,omitempty"`
	Origin  string `json:"origin,omitempty"`
	Message string `json:"message"`
	Level   string `json:"level"`
}

func (d Diagnostic) String() string {
	s := d.Level + ": " + d.Message
	if d.Origin != "" {
		s += " (" + d.Origin + ")"
	}
	return s
}

// Entry is one resolved tool: everything dispatch, policy, display and the
// provider definitions need, from one resolution. Treat it as read-only.
type Entry struct {
	// Spec is the tool as its source described it, with the provenance
	// completed from the source.
	Spec ToolSpec
	// Effective is the registry metadata after tools.metadata overrides.
	// Effective.Capability is the registry's singular capability (or the
	// override's when the registry has none); RequiredCapabilities is the
	// full list dispatch must check.
	Effective            Metadata
	RequiredCapabilities []string
	Schema               *Schema
	// Binding is the source's opaque binding, handed back to dispatch.
	Binding          any
	StrictCompatible bool
	// StrictReasons say why the schema is not OpenAI strict-mode compatible.
	StrictReasons []string
	Diagnostics   []Diagnostic
	// HostGrants are what the operator's path-scoped grants file gives
	// this authored tool (Catalog.WithHostGrants); nil for every other.
	HostGrants []HostGrant
}

// Name is the model-visible tool name.
func (e *Entry) Name() string { return e.Spec.Name }

// Catalog is the resolved set of tools for one turn. It is immutable.
type Catalog struct {
	entries     []*Entry
	byName      map[string]*Entry
	diagnostics []Diagnostic // not tied to an entry: overrides of unknown tools
	disabled    []string
	// deferred are the tools the core defers (disclosure.go); disclosure
	// says which of them the session activated.
	deferred   map[string]bool
	disclosure *Disclosure

	unavailable []Unavailable // left out by Callable

	// fingerprint is computed on first use: it encodes every entry, and
	// most turns never ask for it.
	fingerprintOnce sync.Once
	fingerprint     string
}

// ReservedNamePrefixes begin the names of the host's own MCP approvals
// (mcp_connect__SERVER starts a server, mcp_elicit__SERVER lets it ask the
// operator). No tool may be named with one, in any case: a rule or an
// answer for the approval would also approve calling the tool, so the
// operator's allow:mcp_connect__docs, meant to start docs, would run an
// authored tool named mcp_connect__docs without asking.
var ReservedNamePrefixes = []string{"mcp_connect__", "mcp_elicit__"}

func reservedName(name string, prov Provenance) error {
	for _, p := range ReservedNamePrefixes {
		if len(name) >= len(p) && strings.EqualFold(name[:len(p)], p) {
			return fmt.Errorf("tool name %q (%s) begins with %s, which names the host's own MCP approvals; an approval for one would approve the other; rename the tool", name, prov, p)
		}
	}
	return nil
}

// Resolve builds the catalog from its sources and the core's
// tools.metadata overrides. It fails on an invalid tool name, metadata,
// subject or schema (naming the tool and its provenance) and on a name two
// sources share (a *CollisionError, possibly several joined). Refused and
// unused overrides become diagnostics.
func Resolve(sources []Source, overrides map[string]Override) (*Catalog, error) {
	var errs []error
	type candidate struct {
		spec    ToolSpec
		binding any
	}
	n := 0
	for i := range sources {
		n += len(sources[i].Tools)
	}
	// Sized up front: a turn with hundreds of MCP tools resolves this
	// every turn, and growing the maps was a fifth of the cost.
	candidates := make([]candidate, 0, n)
	seen := make(map[string]Provenance, n)
	for i := range sources {
		src := &sources[i]
		if err := checkSource(src, i); err != nil {
			errs = append(errs, err)
			continue
		}
		for _, spec := range src.Tools {
			prov, err := completeProvenance(spec, src)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			spec.Provenance = prov
			if err := reservedName(spec.Name, prov); err != nil {
				errs = append(errs, err)
				continue
			}
			// Uniqueness is checked on every declared tool, enabled or not:
			// tools.metadata is keyed by name, so it cannot tell two
			// same-named tools apart to disable one of them.
			if first, dup := seen[spec.Name]; dup {
				errs = append(errs, &CollisionError{
					Name: spec.Name, First: first, Second: prov,
					InvolvesMCP: first.Kind == SourceMCP || prov.Kind == SourceMCP,
				})
				continue
			}
			seen[spec.Name] = prov
			candidates = append(candidates, candidate{spec, src.Binding})
		}
	}

	c := &Catalog{byName: make(map[string]*Entry, len(candidates)), entries: make([]*Entry, 0, len(candidates))}
	for _, cand := range candidates {
		ov, hasOverride := overrides[cand.spec.Name]
		if hasOverride && ov.Enabled != nil && !*ov.Enabled {
			c.disabled = append(c.disabled, cand.spec.Name)
			continue
		}
		e, err := resolveEntry(cand.spec, cand.binding, ov, hasOverride)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		c.entries = append(c.entries, e)
		c.byName[e.Spec.Name] = e
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	c.diagnostics = unusedOverrides(overrides, seen)
	return c, nil
}

func checkSource(src *Source, index int) error {
	switch src.Kind {
	case SourceBuiltin, SourceInstalled, SourceAuthored, SourceMCP:
	default:
		return fmt.Errorf("source %d (%q) has kind %q; want builtin, installed, authored or mcp", index, src.Name, src.Kind)
	}
	if src.Name == "" {
		return fmt.Errorf("source %d (kind %s) has no name", index, src.Kind)
	}
	return nil
}

// completeProvenance fills what the spec left out from its source. A spec
// that claims another kind or toolset than its source is refused: the
// collision rules and policy depend on the kind being true.
func completeProvenance(spec ToolSpec, src *Source) (Provenance, error) {
	p := spec.Provenance
	if p.Kind == "" {
		p.Kind = src.Kind
	}
	if p.Toolset == "" {
		p.Toolset = src.Name
	}
	if p.Kind != src.Kind || p.Toolset != src.Name {
		return p, fmt.Errorf("tool %q claims provenance %s but comes from %s source %q; the source is authoritative, fix the tool's provenance",
			spec.Name, p, src.Kind, src.Name)
	}
	return p, nil
}

func resolveEntry(spec ToolSpec, binding any, ov Override, hasOverride bool) (*Entry, error) {
	where := func(err error) error {
		return fmt.Errorf("tool %q from %s: %w", spec.Name, spec.Provenance, err)
	}
	if err := ValidToolName(spec.Name); err != nil {
		return nil, where(err)
	}
	if err := checkMetadata(spec.Metadata); err != nil {
		return nil, where(err)
	}
	if err := checkEffect(spec.Effect); err != nil {
		return nil, where(err)
	}
	schema, strict, strictReasons, err := resolveSchema(spec.InputSchema)
	if err != nil {
		return nil, where(fmt.Errorf("input schema: %w", err))
	}
	if err := checkSubjects(spec.Subjects, schema); err != nil {
		return nil, where(err)
	}
	spec.Metadata.Capabilities = append([]string(nil), spec.Metadata.Capabilities...)
	spec.Subjects = append([]Subject(nil), spec.Subjects...)

	e := &Entry{Spec: spec, Schema: schema, Binding: binding}
	e.Effective = spec.Metadata
	e.Effective.Capabilities = append([]string(nil), spec.Metadata.Capabilities...)
	if hasOverride {
		eff, diags, err := applyOverride(spec.Name, spec.Metadata, ov)
		if err != nil {
			return nil, err
		}
		e.Effective, e.Diagnostics = eff, diags
	}
	e.RequiredCapabilities = requiredCapabilities(spec.Metadata.Capability, ov)
	e.StrictCompatible, e.StrictReasons = strict, strictReasons
	return e, nil
}

func checkMetadata(m Metadata) error {
	if m.Risk < RiskLow || m.Risk > RiskHigh {
		return fmt.Errorf("metadata risk %d is not low, medium or high", int(m.Risk))
	}
	if m.ApprovalPolicy < ApprovalAuto || m.ApprovalPolicy > ApprovalDeny {
		return fmt.Errorf("metadata approval_policy %d is not auto, prompt or deny", int(m.ApprovalPolicy))
	}
	return nil
}

func checkEffect(e Effect) error {
	switch e {
	case EffectRead, EffectWrite, EffectExec, EffectNetwork, EffectControl:
		return nil
	}
	return fmt.Errorf("effect %q is not one of read, write, exec, network, control", e)
}

// checkSubjects makes sure every argument a subject names is declared by
// the schema: a subject pointing at nothing would let a call touch a path
// or URL the host never assesses.
func checkSubjects(subjects []Subject, schema *Schema) error {
	props, _ := schema.doc["properties"].(map[string]any)
	need := func(kind SubjectKind, field, arg string) error {
		if _, ok := props[arg]; !ok {
			return fmt.Errorf("%s subject %s %q is not a property of the input schema", kind, field, arg)
		}
		return nil
	}
	for _, s := range subjects {
		switch s.Kind {
		case SubjectPath:
			if s.Access != AccessRead && s.Access != AccessWrite {
				return fmt.Errorf("path subject %q has access %q; want read or write", s.Arg, s.Access)
			}
		case SubjectCommand, SubjectURL:
		case SubjectSkill:
			for _, extra := range []struct{ field, arg string }{{"path_arg", s.PathArg}, {"action_arg", s.ActionArg}} {
				if extra.arg != "" {
					if err := need(s.Kind, extra.field, extra.arg); err != nil {
						return err
					}
				}
			}
		default:
			return fmt.Errorf("subject kind %q is not path, command, url or skill", s.Kind)
		}
		if s.Arg == "" {
			return fmt.Errorf("%s subject names no argument", s.Kind)
		}
		if err := need(s.Kind, "argument", s.Arg); err != nil {
			return err
		}
		for _, extra := range []struct{ field, arg string }{
			{"cwd_arg", s.CwdArg}, {"env_arg", s.EnvArg}, {"background_arg", s.BackgroundArg}, {"timeout_arg", s.TimeoutArg},
		} {
			if extra.arg == "" {
				continue
			}
			if s.Kind != SubjectCommand {
				return fmt.Errorf("%s subject %q sets %s, which only command subjects have", s.Kind, s.Arg, extra.field)
			}
			if err := need(s.Kind, extra.field, extra.arg); err != nil {
				return err
			}
		}
	}
	return nil
}

// unusedOverrides reports overrides naming tools that no source declares.
func unusedOverrides(overrides map[string]Override, declared map[string]Provenance) []Diagnostic {
	var names, known []string
	for n := range overrides {
		if _, ok := declared[n]; !ok {
			names = append(names, n)
		}
	}
	for n := range declared {
		known = append(known, n)
	}
	sort.Strings(names)
	var out []Diagnostic
	for _, n := range names {
		msg := fmt.Sprintf("tools.metadata names tool %q, which no toolset, authored tool or MCP server provides; the override has no effect", n)
		if s := suggest(n, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		out = append(out, Diagnostic{Tool: n, Origin: overrides[n].Origin, Message: msg, Level: LevelWarning})
	}
	return out
}

// Lookup finds an entry by its model-visible name.
func (c *Catalog) Lookup(name string) (*Entry, bool) {
	e, ok := c.byName[name]
	return e, ok
}

// Entries lists the entries in source order, then tool order.
func (c *Catalog) Entries() []*Entry {
	return append([]*Entry(nil), c.entries...)
}

// Len is the number of enabled tools.
func (c *Catalog) Len() int { return len(c.entries) }

// Disabled lists the tools that tools.metadata disabled, in source order.
func (c *Catalog) Disabled() []string {
	return append([]string(nil), c.disabled...)
}

// Diagnostics lists every diagnostic: the entries' in entry order, then
// those about overrides of unknown tools.
func (c *Catalog) Diagnostics() []Diagnostic {
	var out []Diagnostic
	for _, e := range c.entries {
		out = append(out, e.Diagnostics...)
	}
	return append(out, c.diagnostics...)
}

// Fingerprint identifies the resolved catalog: any change to a spec, a
// schema, an effective policy, a diagnostic or the set of tools changes it.
// Bindings do not take part.
func (c *Catalog) Fingerprint() string {
	c.fingerprintOnce.Do(func() { c.fingerprint = fingerprint(c) })
	return c.fingerprint
}
