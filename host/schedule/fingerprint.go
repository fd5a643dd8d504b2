package schedule

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// FingerprintLen is how many hex digits of the approval fingerprint the
// operator is shown and types back (64 bits: no agent finds another
// schedule with the same digits by updating it over and over).
const FingerprintLen = 16

// Approval is what `demiurge schedules approve` would approve now: the
// binding it would make and the fingerprint of all of it, which the
// operator copies from `schedules show` to approve.
type Approval struct {
	Fingerprint  string `json:"fingerprint"`
	CoreRevision string `json:"core_revision"`
	Catalog      string `json:"catalog_fingerprint"`
	Workspace    string `json:"workspace"`
}

// ShownSchedule is `schedules show`'s answer: the schedule and what
// approving it now would approve.
type ShownSchedule struct {
	Schedule
	Approval *Approval `json:"approval,omitempty"`
	// Unapprovable says why it cannot be approved now (its core cannot
	// be read to bind it); Approval is nil then.
	Unapprovable string `json:"unapprovable,omitempty"`
}

// Fingerprint is the short hash of everything an approval of sc trusts:
// what runs (prompt, core, tools), when (the timing as shown, without the
// interval's anchor, the missed-run and overlap policies), how much (the
// budget), where it writes (the result file), the lease asked for (tools,
// paths, commands, requested expiry) and the binding the approval makes
// (the core's revision and catalog fingerprint and the host's workspace
// now). Run state (next, claim, pause, last run) is not covered.
func Fingerprint(sc Schedule, revision, catalog, workspace string) string {
	t := sc.Timing
	t.Anchor = time.Time{}
	covered := struct {
		ID, Prompt, CoreID         string
		Timing                     Timing
		Tools                      []string
		Budget                     Budget
		ResultFile, Missed         string
		Grace                      int64
		Overlap                    string
		LeaseTools, Paths, Cmds    []string
		Expires                    time.Time
		Revision, Catalog, WorkDir string
	}{sc.ID, sc.Prompt, sc.CoreID, t, sc.Tools, sc.Budget, sc.ResultFile, sc.Missed, sc.GraceSeconds, sc.Overlap,
		sc.Lease.Tools, sc.Lease.Paths, sc.Lease.Commands, sc.Lease.Expires.UTC(), revision, catalog, workspace}
	b, err := json.Marshal(covered)
	if err != nil {
		panic(err) // plain strings, numbers and times
	}
	sum := sha256.Sum256(append([]byte("demiurge schedule approval v1\n"), b...))
	return hex.EncodeToString(sum[:])[:FingerprintLen]
}

// ApprovalOf is what approving sc now would approve (its fingerprint
// and binding), as `schedules show` prints it.
func (m *Manager) ApprovalOf(sc Schedule) (*Approval, error) {
	rev, cat, err := m.Env.Binding(sc.CoreID)
	if err != nil {
		return nil, fmt.Errorf("core %q cannot be read to bind the lease: %w", sc.CoreID, err)
	}
	ws := m.Env.Workspace()
	return &Approval{Fingerprint: Fingerprint(sc, rev, cat, ws), CoreRevision: rev, Catalog: cat, Workspace: ws}, nil
}

// fingerprintRefusal says why an approval's fingerprint does not match
// the schedule as it is ("" when it does). It never names the new
// fingerprint: the operator reads the schedule again to get it.
func fingerprintRefusal(id, want, have string) string {
	want = strings.ToLower(strings.TrimSpace(want))
	switch {
	case want == "":
		return fmt.Sprintf("approving needs the fingerprint `demiurge schedules show %s` prints (approve what you read: `demiurge schedules approve %s FINGERPRINT`)", id, id)
	case want != have:
		return fmt.Sprintf("schedule %s changed since fingerprint %s was shown (the schedule, its lease, or the core, catalog or workspace it would be bound to): nothing was approved; read it again with `demiurge schedules show %s` and approve the fingerprint it prints", id, short(want, FingerprintLen+4), id)
	}
	return ""
}
