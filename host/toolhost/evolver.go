package toolhost

import (
	"fmt"
	"path/filepath"

	"demiurge.dev/host/evolve"
)

// EvolverCore is the core an evolution run's evolver runs (the embedded
// default core ships one).
const EvolverCore = "evolver"

// EvolverHost opens the host of core `evolver` of the revision h runs,
// for one run: its workspace is the run's agents/ work tree, the one
// place its file tools may write (a write anywhere else, the live core
// and the rest of the state directory included, is refused as outside
// the workspace or in the host's state; a .git in it is the operator's
// alone and review refuses one). Like every core host it never holds more
// than h (CoreHost). The caller closes it when the evolver ends.
func (h *Host) EvolverHost(stateDir, runID string) (*Host, error) {
	b := h.hooksHost()
	if b.Core.Version == nil {
		return nil, fmt.Errorf("core %q: this session runs a plain core directory (--core), which has no evolver", EvolverCore)
	}
	dir := evolve.AgentsDir(stateDir, runID)
	if filepath.Dir(filepath.Dir(dir)) != filepath.Join(evolve.Root(stateDir), "runs") {
		return nil, fmt.Errorf("run %s: not a run's work tree", runID)
	}
	eh, err := b.openCoreHostIn(EvolverCore, dir)
	if err != nil {
		return nil, err
	}
	eh.Workspace.RunTree = true
	return eh, nil
}
