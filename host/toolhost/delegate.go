package toolhost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"demiurge.dev/catalog"
)

// Delegation is what a session hands a delegated child. Everything in it
// can only narrow the parent's standing: the host issues the child's
// authority from the parent's, never from what the child asks for.
type Delegation struct {
	// Tools selects the child's tools by name. Nil or ["all"] keeps the
	// parent's tools; an empty list or ["none"] gives none; otherwise
	// every name must be a tool of the parent's catalog.
	Tools []string
	// Capabilities are the child's grants. Nil keeps the parent's;
	// otherwise each must be held by the parent (policy.CapabilitySet.Narrow).
	Capabilities []string
}

// MaxDelegationDepth bounds a chain of children: a child may delegate in
// turn, but not without end.
const MaxDelegationDepth = 8

// depth is how many delegations deep s is; a top-level session is 0.
func (s *Session) depth() int {
	n := 0
	for p := s.parent; p != nil; p = p.parent {
		n++
	}
	return n
}

// Delegate starts a delegated child of s: a session of its own, under an
// authority the host issues from s's (same principal and core revision, a
// new session id, capabilities and tools narrowed as d asks). The child
// opens its own MCP connections, through its own connect gate; they close
// when the child's run ends (End), when s ends, or when the host closes.
// A selection naming a tool s does not have is an error, and nothing is
// started.
func (s *Session) Delegate(ctx context.Context, d Delegation) (*Session, error) {
	return s.DelegateTo(ctx, s.h, d)
}

// DelegateTo is Delegate for a child that runs the core of target (a
// CoreHost of s's host): its catalog is target's, narrowed to the tools
// of s's own catalog (same name, same toolset) and then to d's
// selection, and its capabilities are those s holds and target's core
// grants. A child of another core never holds what its parent lacks, nor
// what its own core does not grant.
func (s *Session) DelegateTo(ctx context.Context, target *Host, d Delegation) (*Session, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	if s.depth() >= MaxDelegationDepth {
		return nil, fmt.Errorf("delegation: session %s is %d delegations deep, the most there may be", s.ID(), MaxDelegationDepth)
	}
	other := target != s.h
	caps := s.authority.Capabilities
	if other {
		caps = caps.Intersect(target.rootAuthority.Capabilities)
	}
	if d.Capabilities != nil {
		var err error
		if caps, err = caps.Narrow(d.Capabilities); err != nil {
			return nil, fmt.Errorf("delegation: %w", err)
		}
	}
	tools, err := s.selectChildTools(ctx, d.Tools)
	if err != nil {
		return nil, fmt.Errorf("delegation: %w", err)
	}
	a := s.authority
	a.Session = newID("ses_")
	a.Capabilities = caps
	a.PolicyFingerprint = childPolicy(s.authority.PolicyFingerprint, s.ID(), tools)
	if other {
		a.CoreRevision = target.Core.Revision
		if tools, err = s.parentTools(ctx, target, tools, d.Tools != nil); err != nil {
			return nil, fmt.Errorf("delegation: %w", err)
		}
		a.PolicyFingerprint = childPolicy(s.authority.PolicyFingerprint+"\ncore="+target.Core.Revision, s.ID(), tools)
	}
	child := &Session{h: target, authority: a, parent: s, tools: tools, unattended: s.unattended}
	if err := s.adopt(child); err != nil {
		return nil, err
	}
	target.addLive(child)
	return child, nil
}

// parentTools narrows a child of target's core to the tools both s's
// catalog and target's core have, from the same toolset (a same-named
// tool of another plugin is another tool). selected is s's selection (nil:
// all of s's); a name the caller listed that target's core lacks is an
// error.
func (s *Session) parentTools(ctx context.Context, target *Host, selected map[string]bool, listed bool) (map[string]bool, error) {
	mine, err := s.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	probe := &Session{h: target, authority: target.rootAuthority, tools: selected}
	probe.authority.Session = newID("ses_")
	theirs, err := target.catalogFor(ctx, probe, TurnOptions{Unrecorded: true})
	probe.mcp.close()
	if err != nil {
		return nil, fmt.Errorf("core %s: %w", target.coreID(), err)
	}
	out := map[string]bool{}
	for _, e := range theirs.Entries() {
		p, ok := mine.Lookup(e.Spec.Name)
		if ok && (selected == nil || selected[e.Spec.Name]) &&
			p.Spec.Provenance.Kind == e.Spec.Provenance.Kind && p.Spec.Provenance.Toolset == e.Spec.Provenance.Toolset &&
			sameAuthoredCode(p.Spec, e.Spec) {
			out[e.Spec.Name] = true
		}
	}
	if listed {
		var missing []string
		for n := range selected {
			if !out[n] {
				missing = append(missing, n)
			}
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			return nil, fmt.Errorf("tools %s are not tools of core %s (or are another toolset's there); a child of another core gets only tools both cores have", strings.Join(missing, ", "), target.coreID())
		}
	}
	return out, nil
}

// selectChildTools resolves a tool selection against s's own catalog.
func (s *Session) selectChildTools(ctx context.Context, names []string) (map[string]bool, error) {
	switch {
	case names == nil, len(names) == 1 && names[0] == "all":
		if s.tools == nil {
			return nil, nil
		}
		return maps.Clone(s.tools), nil
	case len(names) == 0, len(names) == 1 && names[0] == "none":
		return map[string]bool{}, nil
	}
	cat, err := s.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(names))
	var missing []string
	for _, n := range names {
		if _, ok := cat.Lookup(n); !ok {
			missing = append(missing, n)
			continue
		}
		out[n] = true
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("tools %s are not in the delegating session's catalog; a child can only be given tools its parent has", strings.Join(missing, ", "))
	}
	return out, nil
}

// childPolicy binds a child's session allows to its parent and its
// selection: nothing approved for one child applies to another.
func childPolicy(parentPolicy, parentSession string, tools map[string]bool) string {
	h := sha256.New()
	fmt.Fprintf(h, "parent-policy=%s\nparent-session=%s\n", parentPolicy, parentSession)
	if tools == nil {
		fmt.Fprintln(h, "tools=all")
	} else {
		for _, n := range slices.Sorted(maps.Keys(tools)) {
			fmt.Fprintf(h, "tool=%s\n", n)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sameAuthoredCode reports whether two tools of the same name and toolset
// run the same code. Every core's authored tools share the toolset
// "authored", yet each is its own directory of code: a parent's harmless
// `report` let a child of another core run that core's `report`, approved
// by the parent core's `allow:report` (subagents_core_id_authored.txtar).
// An authored tool is the parent's only when its directory holds exactly
// the same files; anything unreadable is another tool. Other kinds are
// the same plugin's tool.
func sameAuthoredCode(mine, theirs catalog.ToolSpec) bool {
	if mine.Provenance.Kind != catalog.SourceAuthored && theirs.Provenance.Kind != catalog.SourceAuthored {
		return true
	}
	if mine.Provenance.Path == "" || theirs.Provenance.Path == "" {
		return false
	}
	a, err := toolDirDigest(filepath.Dir(mine.Provenance.Path))
	if err != nil {
		return false
	}
	b, err := toolDirDigest(filepath.Dir(theirs.Provenance.Path))
	return err == nil && a == b
}

// toolDirDigest identifies an authored tool's directory by what it holds:
// every entry's path and type, and every regular file's mode and bytes. A
// symlink or special file is an error (a core holds neither).
func toolDirDigest(dir string) (string, error) {
	h := sha256.New()
	n := 0
	err := filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if n++; n > maxFingerprintEntries {
			return fmt.Errorf("more than %d entries", maxFingerprintEntries)
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		switch {
		case e.IsDir():
			fmt.Fprintf(h, "d %q\n", rel)
			return nil
		case !info.Mode().IsRegular():
			return fmt.Errorf("%s is not a regular file", p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "f %q %o %d\n", rel, info.Mode().Perm()&0o111, len(b))
		h.Write(b)
		return nil
	})
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
