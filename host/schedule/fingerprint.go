package schedule

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
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

// notApproved lists, by Go field path in Schedule, the fields an
// approval does not trust, each with why. Closed world: every other
// field of the record (a field added later too) is in the fingerprint
// (approvedPart), and TestEveryScheduleFieldIsApprovedOrListed fails on
// a field that is in neither.
var notApproved = map[string]string{
	"Timing.Anchor":      "an interval's anchor moves with any update of its timing; the interval is what is approved",
	"Paused":             "run state: a pause runs less",
	"PausedByOperator":   "run state: whose pause it is",
	"Lease.CoreRevision": "the binding the approval makes: its value now is part of the fingerprint",
	"Lease.Catalog":      "the binding the approval makes: its value now is part of the fingerprint",
	"Lease.Workspace":    "the binding the approval makes: its value now is part of the fingerprint",
	"Lease.ApprovedBy":   "the approval itself",
	"Lease.ApprovedAt":   "the approval itself",
	"Created":            "when the record was written",
	"Updated":            "when the record was written",
	"Next":               "run state: the next occurrence, moved by every run",
	"Claim":              "run state: the run under way",
	"Queued":             "run state: the occurrence waiting",
	"LastRun":            "run state: the last run",
	"Last":               "run state: the last run's outcome",
}

// approvedPart is sc with every field notApproved lists zeroed and its
// times in UTC: what an approval of sc trusts.
func approvedPart(sc Schedule) Schedule {
	v := reflect.ValueOf(&sc).Elem()
	for path := range notApproved {
		f := v
		for _, name := range strings.Split(path, ".") {
			f = f.FieldByName(name)
		}
		f.SetZero()
	}
	sc.Timing.At = sc.Timing.At.UTC()
	sc.Lease.Expires = sc.Lease.Expires.UTC()
	return sc
}

// fingerprintVersion names the encoding; v1 (stop 48) listed the fields
// it covered by hand. A fingerprint of another version matches nothing:
// the operator reads the schedule again (`schedules show`).
const fingerprintVersion = "demiurge schedule approval v2\n"

// Fingerprint is the short hash of everything an approval of sc trusts:
// every field of the schedule but those notApproved lists (run state,
// record times, the approval and binding it makes, the interval's
// anchor) — what runs (prompt, core, tools), when (the timing, the
// missed-run and overlap policies, grace), how much (the budget), where
// it writes (the result file), the lease asked for (tools, paths,
// commands, requested expiry), who asked (principal, session) — and the
// binding the approval makes (the core's revision and catalog
// fingerprint and the host's workspace now).
func Fingerprint(sc Schedule, revision, catalog, workspace string) string {
	covered := struct {
		Schedule                   Schedule
		Revision, Catalog, WorkDir string
	}{approvedPart(sc), revision, catalog, workspace}
	b, err := json.Marshal(covered)
	if err != nil {
		panic(err) // plain strings, numbers and times
	}
	sum := sha256.Sum256(append([]byte(fingerprintVersion), b...))
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
