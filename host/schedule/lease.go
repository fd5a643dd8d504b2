package schedule

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
)

// CheckLease is the gate before a run: the lease approved, not expired,
// and bound to the core revision, catalog and workspace the host has now. Anything
// else blocks the run until the operator renews the lease.
func CheckLease(sc Schedule, now time.Time, revision, catalog, workspace string) string {
	l := sc.Lease
	switch {
	case !l.Approved():
		return fmt.Sprintf("the lease is not approved: the operator approves it with `demiurge schedules approve %s`", sc.ID)
	case !now.Before(l.Expires):
		return fmt.Sprintf("the lease expired at %s: the operator renews it with `demiurge schedules approve %s`", l.Expires.UTC().Format(time.RFC3339), sc.ID)
	case l.Workspace != workspace:
		return fmt.Sprintf("the lease was approved for the workspace %q and this host's is %q (its paths are that workspace's): the operator approves it for this one with `demiurge schedules approve %s`", l.Workspace, workspace, sc.ID)
	case l.CoreRevision != revision:
		return fmt.Sprintf("core %q changed since the lease was approved (revision %s, now %s): the operator renews it with `demiurge schedules approve %s`", sc.CoreID, shortRev(l.CoreRevision), shortRev(revision), sc.ID)
	case l.Catalog != catalog:
		return fmt.Sprintf("the catalog changed since the lease was approved (fingerprint %s, now %s): the operator renews it with `demiurge schedules approve %s`", shortRev(l.Catalog), shortRev(catalog), sc.ID)
	}
	return ""
}

func shortRev(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	if s == "" {
		return "(none)"
	}
	return s
}

// RunTools is the catalog a run gets: the schedule's tools (or the
// lease's), only those the lease names, never schedule_manage.
func RunTools(sc Schedule) []string {
	want := sc.Tools
	if len(want) == 0 {
		want = sc.Lease.Tools
	}
	var out []string
	for _, t := range want {
		if t != ToolName && slices.Contains(sc.Lease.Tools, t) {
			out = append(out, t)
		}
	}
	return out
}

// LeaseCall is one call of a run, as the lease judges it.
type LeaseCall struct {
	Tool string
	// Paths are the workspace-relative real paths of its path subjects
	// ("" for a path outside the workspace).
	Paths []string
	// Commands are its command subjects' text.
	Commands []string
}

// Allows reports whether the lease covers the call, and why not.
func (l Lease) Allows(c LeaseCall) (bool, string) {
	if c.Tool == ToolName || !slices.Contains(l.Tools, c.Tool) {
		return false, fmt.Sprintf("%s is outside this scheduled run's lease (tools: %s)", c.Tool, strings.Join(l.Tools, ", "))
	}
	for _, p := range c.Paths {
		if p == "" || !pathLeased(l.Paths, p) {
			return false, fmt.Sprintf("path %q is outside this scheduled run's lease (paths: %s)", p, strings.Join(l.Paths, ", "))
		}
	}
	for _, cmd := range c.Commands {
		if !commandLeased(l.Commands, cmd) {
			return false, fmt.Sprintf("command %q is outside this scheduled run's lease", short(cmd, 80))
		}
	}
	return true, ""
}

// pathLeased: p equals a leased path, or lies under a leased "dir/**".
func pathLeased(leased []string, p string) bool {
	p = path.Clean(p)
	for _, l := range leased {
		if dir, tree := strings.CutSuffix(l, "/**"); tree {
			if p == dir || strings.HasPrefix(p, dir+"/") || dir == "." {
				return true
			}
		} else if p == l {
			return true
		}
	}
	return false
}

// commandLeased: the command equals a leased one exactly (a trailing " *"
// leases that command with any further arguments).
func commandLeased(leased []string, cmd string) bool {
	cmd = strings.TrimSpace(cmd)
	for _, l := range leased {
		if prefix, ok := strings.CutSuffix(l, " *"); ok {
			// The further arguments are plain words: no shell control
			// character may ride on a leased prefix.
			if cmd == prefix || (strings.HasPrefix(cmd, prefix+" ") && !strings.ContainsAny(cmd[len(prefix):], ";&|`$()<>\\\n'\"*?{}[]~")) {
				return true
			}
		} else if cmd == l {
			return true
		}
	}
	return false
}

// CoversPath reports whether a workspace-relative path is within the
// lease's paths (a run's result file must be).
func (l Lease) CoversPath(p string) bool { return checkRel(p) == nil && pathLeased(l.Paths, p) }
