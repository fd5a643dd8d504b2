// Package evolve is the Agent Core's evolution runs (seed 000, "Core
// Evolution Tools"): a run is a work tree of live at
// STATE/core/.evolve/runs/<run_id>/agents that an evolver edits; review
// runs the host's gates on it and records the commit at
// refs/demiurge/runs/<run_id> with the exact changed paths and a
// secret-safe before/after summary of what the change does to authority;
// promote reruns the gates and moves previous and live by compare-and-swap;
// discard removes the work tree, the run's metadata and its ref.
//
// The gates themselves (every core loads, its catalog resolves, its slots
// and pipelines validate) are the host's (toolhost.Gate), passed in as a
// corerepo.Gate, so that this package needs no plugin.
package evolve
