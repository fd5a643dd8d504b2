package toolhost

import (
	"fmt"
	"path/filepath"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
	"demiurge.dev/host/policy"
)

// loadPathGrants reads the operator's path-scoped grants file
// (Options.GrantsFile) and keeps this core's grants. The file must lie
// outside the workspace, the core and the state directory; a file that is
// unsafe or malformed fails the host, never grants half.
func (h *Host) loadPathGrants(opts Options) error {
	g, err := h.readPathGrants(opts.StateDir)
	if err != nil {
		return err
	}
	h.pathGrantsDigest = g.Digest()
	if v := h.Core.Version; v != nil {
		h.pathGrants = g.ForCore(v.ID, "")
	} else {
		h.pathGrants = g.ForCore("", h.Core.Dir)
	}
	return nil
}

// readPathGrants reads the operator's whole grants file, refused when it
// lies where an agent may write: the workspace, the core, the state.
func (h *Host) readPathGrants(stateDir string) (*policy.PathGrants, error) {
	off := []policy.AgentDir{{Name: "workspace", Path: h.Workspace.Root}, {Name: "core", Path: h.Core.Dir}, {Name: "state directory", Path: stateDir}}
	return policy.LoadPathGrants(h.opts.GrantsFile, off)
}

// authoredToolGrants are the operator's grants to an authored tool, by its
// directory in the core (slots.tools/<name>). The path is the host's own:
// the tool's name is its directory's (the runtime skips symlinked
// directories), and the tool.yaml the runtime reports must be that
// directory's, or the tool gets no grant.
func (h *Host) authoredToolGrants(e *catalog.Entry) []catalog.HostGrant {
	if len(h.pathGrants) == 0 {
		return nil
	}
	p, ok := h.authoredToolPath(&e.Spec)
	if !ok {
		return nil
	}
	return h.pathGrants.For(p)
}

// authoredToolPath is an authored tool's path in the core, the subject of
// its grants: false for any other tool, or one whose reported tool.yaml is
// not its own directory's.
func (h *Host) authoredToolPath(t *catalog.ToolSpec) (string, bool) {
	c := h.Core
	if t.Provenance.Kind != catalog.SourceAuthored || c.ToolsRoot == "" {
		return "", false
	}
	dir := filepath.Join(c.ToolsRoot, t.Name)
	if t.Provenance.Path != filepath.Join(dir, "tool.yaml") {
		return "", false
	}
	return corePath(c, dir), true
}

// unusedGrantWarnings name each grant of this core's that reaches no
// authored tool among sources and no pipeline slot: a pattern with a
// mistake in it, or a tool since renamed, grants nothing, and the
// operator who wrote it would otherwise never learn so.
func (h *Host) unusedGrantWarnings(sources []catalog.Source) []string {
	if len(h.pathGrants) == 0 {
		return nil
	}
	var paths []string
	for _, src := range sources {
		for i := range src.Tools {
			if p, ok := h.authoredToolPath(&src.Tools[i]); ok {
				paths = append(paths, p)
			}
		}
	}
	for _, s := range h.Core.Slots {
		paths = append(paths, corePath(h.Core, s.Dir))
	}
	var out []string
	for _, g := range h.pathGrants.Unmatched(paths) {
		out = append(out, fmt.Sprintf("%s: the grant to path %s reaches no authored tool or slot of this core, so it grants nothing", g.Origin(), g.Pattern))
	}
	return out
}

// slotGrants are the operator's grants to a pipeline slot (slots/<id>).
func (h *Host) slotGrants(s *core.Slot) []catalog.HostGrant {
	if len(h.pathGrants) == 0 {
		return nil
	}
	return h.pathGrants.For(corePath(h.Core, s.Dir))
}

// corePath is dir's slash-separated path in the core, "" when it is not
// inside it (then nothing is granted).
func corePath(c *core.Core, dir string) string {
	if c.Dir == "" {
		return ""
	}
	rel, err := filepath.Rel(c.Dir, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}
