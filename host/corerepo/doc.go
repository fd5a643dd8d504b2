// Package corerepo is the Agent Core repository: a bare git repository with
// one directory per core (agents/<core_id>/), whose refs/demiurge/live is
// what the host runs and refs/demiurge/previous the live commit before the
// last move.
//
// The host never runs a core from a work tree. It reads the live commit's
// tree into a read-only copy under the state directory keyed by the commit
// id (Materialize), so no workspace path, agent process or approved command
// can change the core it runs, and the core revision in every authority is
// the commit id.
//
// git is go-git (pure Go, in process): it runs no program a repository
// names (hooks, filters, fsmonitor, pagers, credential helpers) by
// construction, and it is 5 to 30 times faster than the git CLI for the
// operations here (BENCHMARKS.md, "Core repository"). Ref moves use git's
// own lock-file protocol (<ref>.lock created exclusively, compared, renamed),
// so a real git writing the same ref at the same time is serialised too.
package corerepo
