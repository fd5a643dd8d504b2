package agents

import (
	"fmt"
	"slices"
	"strings"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/toolhost"
)

// checkCoreID admits core_id: omitted or the parent's own core. Any other
// id is refused: an id the parent's core revision does not hold is
// unknown (the answer lists the ids it holds), and one it holds cannot be
// run as a child in this build (a child of another core needs that core's
// catalog, plugins and pipeline, under the parent's authority narrowed by
// that core's grants), rather than be run under the parent's core.
func (g *Gate) checkCoreID(parent *toolhost.Session, id string) error {
	own := parent.CoreID()
	if id == "" || id == own {
		return nil
	}
	if err := corerepo.ValidCoreID(id); err != nil {
		return refuse("unknown core_id: %v", err)
	}
	c := g.Host.Core
	if c == nil || c.Version == nil {
		return refuse("unknown core_id %q: this session runs a plain core directory (--core), not a core of the core repository, so it names no other core; omit core_id", id)
	}
	cores, err := revisionCores(g.Host.StateDir, c.Version.Commit)
	switch {
	case err != nil:
		return fmt.Errorf("core_id %q: the core repository could not be read: %w", id, err)
	case !slices.Contains(cores, id):
		return refuse("unknown core_id %q: the core repository's revision holds %s", id, strings.Join(cores, ", "))
	}
	return refuse("core_id %q: a child can run only its parent's core (%q) in this build; omit core_id", id, own)
}

// revisionCores lists the core ids of commit, the revision the host's
// core was read from.
func revisionCores(stateDir, commit string) ([]string, error) {
	r, err := corerepo.Open(stateDir)
	if err != nil {
		return nil, err
	}
	return r.Cores(commit)
}
