package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"demiurge.dev/host/runtime"
	"demiurge.dev/host/termtext"
)

// ToolName is the one tool of the schedule toolset; a scheduled run never
// has it.
const ToolName = "schedule_manage"

// DefaultBudget is a run's budget where the schedule names none.
var DefaultBudget = Budget{Steps: 20, OutputTokens: 20000, WallSeconds: 600}

// Bounds of what a schedule may ask.
const (
	MaxPrompt      = 20000
	MaxSchedules   = 10000
	MaxSteps       = 200
	MaxOutput      = 400000
	MaxWallSeconds = 6 * 3600
	MaxGrace       = 7 * 24 * 3600
	MaxLeaseDays   = 90
)

// ErrInvalid marks a refused request; its message is for the model or
// the operator.
var ErrInvalid = errors.New("invalid schedule")

func invalid(format string, a ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, a...))
}

// Spec is what a create or update asks (every field optional on update).
type Spec struct {
	Prompt       *string    `json:"prompt,omitempty"`
	CoreID       *string    `json:"core_id,omitempty"`
	Cron         *string    `json:"cron,omitempty"`
	Zone         *string    `json:"zone,omitempty"`
	EverySeconds *int64     `json:"every_seconds,omitempty"`
	At           *string    `json:"at,omitempty"`
	Tools        []string   `json:"tools,omitempty"`
	Budget       *Budget    `json:"budget,omitempty"`
	ResultFile   *string    `json:"result_file,omitempty"`
	Missed       *string    `json:"missed,omitempty"`
	GraceSeconds *int64     `json:"grace_seconds,omitempty"`
	Overlap      *string    `json:"overlap,omitempty"`
	Lease        *LeaseSpec `json:"lease,omitempty"`
}

// LeaseSpec is the lease a schedule asks the operator for.
type LeaseSpec struct {
	Tools     []string `json:"tools"`
	Paths     []string `json:"paths,omitempty"`
	Commands  []string `json:"commands,omitempty"`
	ExpiresIn int64    `json:"expires_in_days,omitempty"`
}

// Env is what a manager checks requests against.
type Env interface {
	// CoreKnown reports whether a core id exists (and names the known ones).
	CoreKnown(id string) (bool, []string)
	// DefaultCore is the host's core id.
	DefaultCore() string
	// ToolKnown reports whether the core's catalog has the tool.
	ToolKnown(core, tool string) bool
	// Binding is the core's revision and catalog fingerprint now.
	Binding(core string) (revision, catalog string, err error)
	// Workspace is the host's workspace, which a lease is approved for.
	Workspace() string
}

// Manager is the one place schedules change: the tool, the CLI and the
// host go through it.
type Manager struct {
	Store  Store
	Engine *Engine
	Env    Env
}

func (m *Manager) now() time.Time { return m.Engine.Clock.Now() }

// Create stores a new schedule from spec. Its lease is requested, not
// approved: its runs are blocked until the operator approves it
// (Approve), so nothing the model wrote runs unattended by itself.
func (m *Manager) Create(ctx context.Context, spec Spec, principal, session string) (*Schedule, error) {
	if spec.Prompt == nil {
		return nil, invalid("prompt is required: the instruction each run starts with")
	}
	all, err := m.Store.List()
	if err != nil {
		return nil, err
	}
	if len(all) >= MaxSchedules {
		return nil, invalid("this host already has %d schedules, the most it keeps; delete one first", len(all))
	}
	now := m.now()
	sc := Schedule{ID: NewID("sch_"), CoreID: m.Env.DefaultCore(), Budget: DefaultBudget, Missed: MissedSkip, Overlap: OverlapSkip,
		GraceSeconds: int64(DefaultGrace / time.Second), Principal: principal, Session: session, Created: now, Updated: now}
	sc.Lease.Expires = now.Add(30 * 24 * time.Hour)
	if spec.Cron == nil && spec.EverySeconds == nil && spec.At == nil {
		return nil, invalid("give when it runs: cron (with zone), every_seconds or at")
	}
	if err := m.apply(&sc, spec, now); err != nil {
		return nil, err
	}
	data, _ := json.Marshal(map[string]any{"schedule": sc.ID, "timing": sc.Timing.Describe(), "core_id": sc.CoreID, "lease_tools": sc.Lease.Tools})
	out, err := m.Store.Update(ctx, sc.ID, true, func(s *Schedule) (*runtime.Event, bool, error) {
		*s = sc
		return &runtime.Event{Time: now, Kind: "schedule.create", Session: session, Tool: ToolName, Data: data}, false, nil
	})
	if err != nil {
		return nil, err
	}
	m.Engine.Arm()
	return out, nil
}

// Update changes what spec names; a changed lease request or core, wider
// tools, or an update that lets it run more (runsMore) drops the
// approval (the operator approves again).
func (m *Manager) Update(ctx context.Context, id string, spec Spec, session string) (*Schedule, error) {
	now := m.now()
	out, err := m.Store.Update(ctx, id, false, func(s *Schedule) (*runtime.Event, bool, error) {
		if err := m.apply(s, spec, now); err != nil {
			return nil, false, err
		}
		s.Updated = now
		data, _ := json.Marshal(map[string]any{"schedule": id, "timing": s.Timing.Describe()})
		return &runtime.Event{Time: now, Kind: "schedule.update", Session: session, Tool: ToolName, Data: data}, false, nil
	})
	if err == nil {
		m.Engine.Arm()
	}
	return out, err
}

// apply checks spec and writes it into sc.
func (m *Manager) apply(sc *Schedule, spec Spec, now time.Time) error {
	before := *sc
	if p := spec.Prompt; p != nil {
		if strings.TrimSpace(*p) == "" || !utf8.ValidString(*p) || utf8.RuneCountInString(*p) > MaxPrompt {
			return invalid("prompt must be non-empty text of at most %d characters", MaxPrompt)
		}
		if notPlain(*p) {
			return invalid("prompt: plain text only, no control, format or invisible characters but newline and tab (the operator reads it in `demiurge schedules show` before approving)")
		}
		sc.Prompt = *p
	}
	rebind := false
	if c := spec.CoreID; c != nil {
		known, ids := m.Env.CoreKnown(*c)
		if !known {
			return invalid("core_id %q does not exist in this host; known cores: %s", short(*c, 64), strings.Join(ids, ", "))
		}
		rebind = rebind || *c != sc.CoreID
		sc.CoreID = *c
	}
	if spec.Cron != nil || spec.EverySeconds != nil || spec.At != nil || spec.Zone != nil {
		t := Timing{}
		if spec.Cron != nil {
			t.Cron = *spec.Cron
			if spec.Zone != nil {
				t.Zone = *spec.Zone
			}
		} else if spec.Zone != nil {
			if sc.Timing.Cron == "" {
				return fmt.Errorf("%w: zone applies only to a cron expression", ErrTiming)
			}
			t.Cron, t.Zone = sc.Timing.Cron, *spec.Zone
		}
		if spec.EverySeconds != nil {
			t.EverySeconds, t.Anchor = *spec.EverySeconds, now
		}
		if spec.At != nil {
			at, err := time.Parse(time.RFC3339, *spec.At)
			if err != nil {
				return fmt.Errorf("%w: at %q: give an RFC 3339 time with its offset, e.g. 2026-12-05T07:00:00+01:00", ErrTiming, short(*spec.At, 64))
			}
			if !at.After(now) {
				return fmt.Errorf("%w: at %s is not in the future", ErrTiming, at.Format(time.RFC3339))
			}
			t.At = at.UTC()
		}
		if err := t.Check(); err != nil {
			return err
		}
		sc.Timing = t
		sc.Next = t.Next(now)
	}
	if spec.Tools != nil {
		for _, name := range spec.Tools {
			if name == ToolName {
				return invalid("tools: a scheduled run never gets %s", ToolName)
			}
			if !m.Env.ToolKnown(sc.CoreID, name) {
				return invalid("tools: %q is not a tool of core %q", short(name, 64), sc.CoreID)
			}
		}
		sc.Tools = slices.Clone(spec.Tools)
	}
	if b := spec.Budget; b != nil {
		if b.Steps < 0 || b.Steps > MaxSteps || b.OutputTokens < 0 || b.OutputTokens > MaxOutput || b.WallSeconds < 0 || b.WallSeconds > MaxWallSeconds {
			return invalid("budget: steps 0..%d, output_tokens 0..%d, wall_seconds 0..%d (0 keeps the default)", MaxSteps, MaxOutput, MaxWallSeconds)
		}
		nb := DefaultBudget
		if b.Steps > 0 {
			nb.Steps = b.Steps
		}
		if b.OutputTokens > 0 {
			nb.OutputTokens = b.OutputTokens
		}
		if b.WallSeconds > 0 {
			nb.WallSeconds = b.WallSeconds
		}
		sc.Budget = nb
	}
	if f := spec.ResultFile; f != nil {
		if *f != "" {
			if err := checkRel(*f); err != nil {
				return invalid("result_file: %v", err)
			}
			if notPlain(*f) || strings.ContainsAny(*f, "\n\t") {
				return invalid("result_file: a path of plain characters (no control or bidi characters)")
			}
		}
		sc.ResultFile = *f
	}
	if p := spec.Missed; p != nil {
		if *p != MissedCatchUp && *p != MissedSkip {
			return invalid("missed must be catch_up or skip, not %q", short(*p, 32))
		}
		sc.Missed = *p
	}
	if g := spec.GraceSeconds; g != nil {
		if *g < 1 || *g > MaxGrace {
			return invalid("grace_seconds must be 1 to %d", MaxGrace)
		}
		sc.GraceSeconds = *g
	}
	if p := spec.Overlap; p != nil {
		if *p != OverlapSkip && *p != OverlapQueue && *p != OverlapCancel {
			return invalid("overlap must be skip, queue or cancel, not %q", short(*p, 32))
		}
		sc.Overlap = *p
	}
	if l := spec.Lease; l != nil {
		for _, name := range l.Tools {
			if name == ToolName {
				return invalid("lease.tools: a scheduled run never gets %s", ToolName)
			}
			if !m.Env.ToolKnown(sc.CoreID, name) {
				return invalid("lease.tools: %q is not a tool of core %q", short(name, 64), sc.CoreID)
			}
		}
		for _, p := range l.Paths {
			if err := checkRel(strings.TrimSuffix(p, "/**")); err != nil {
				return invalid("lease.paths: %v", err)
			}
			if notPlain(p) || strings.ContainsAny(p, "\n\t") {
				return invalid("lease.paths: a path of plain characters (no control or bidi characters)")
			}
		}
		for _, c := range l.Commands {
			if strings.TrimSpace(c) == "" || strings.ContainsAny(c, "\n\x00") {
				return invalid("lease.commands: a command is one non-empty line")
			}
			if notPlain(c) || strings.ContainsRune(c, '\t') {
				return invalid("lease.commands: a command of plain characters (no control or bidi characters)")
			}
		}
		days := l.ExpiresIn
		if days == 0 {
			days = 30
		}
		if days < 1 || days > MaxLeaseDays {
			return invalid("lease.expires_in_days must be 1 to %d", MaxLeaseDays)
		}
		sc.Lease = Lease{Tools: slices.Clone(l.Tools), Paths: slices.Clone(l.Paths), Commands: slices.Clone(l.Commands), Expires: now.Add(time.Duration(days) * 24 * time.Hour)}
		rebind = true
	}
	if spec.Tools != nil && sc.Lease.Approved() {
		for _, name := range sc.Tools {
			if !slices.Contains(sc.Lease.Tools, name) {
				rebind = true // a tool the approved lease lacks: ask again
			}
		}
	}
	if sc.Lease.Approved() && runsMore(before, *sc) {
		rebind = true
	}
	if rebind {
		// What the operator approved no longer matches: approve again.
		sc.Lease.ApprovedAt, sc.Lease.ApprovedBy, sc.Lease.CoreRevision, sc.Lease.Catalog, sc.Lease.Workspace = time.Time{}, "", "", "", ""
	}
	return nil
}

// runsMore says whether an update lets the schedule do more than the
// operator approved: any other timing, a larger budget or grace window,
// catch_up for skip, an overlap policy other than skip, another result
// file, a tool the runs could not call before. Closed world over the
// approved part (approvedPart, the fingerprint's): only the prompt (the
// run's user message, which approves nothing) and the fields judged here
// may change and keep the approval; a change of any other approved field
// (one added later too) drops it.
func runsMore(before, after Schedule) bool {
	if after.Budget.Steps > before.Budget.Steps || after.Budget.OutputTokens > before.Budget.OutputTokens ||
		after.Budget.WallSeconds > before.Budget.WallSeconds ||
		after.GraceSeconds > before.GraceSeconds ||
		(after.Missed != before.Missed && after.Missed != MissedSkip) ||
		(after.Overlap != before.Overlap && after.Overlap != OverlapSkip) {
		return true
	}
	was := RunTools(before)
	for _, name := range RunTools(after) {
		if !slices.Contains(was, name) {
			return true
		}
	}
	b, a := approvedPart(before), approvedPart(after)
	b.Prompt, b.Budget, b.GraceSeconds, b.Missed, b.Overlap, b.Tools = a.Prompt, a.Budget, a.GraceSeconds, a.Missed, a.Overlap, a.Tools
	return Fingerprint(b, "", "", "") != Fingerprint(a, "", "", "")
}

// checkRel accepts a clean workspace-relative path.
// modelRunNowRefused says why the model's run_now of sc is refused now
// ("" lets it). The operator approved a lease for runs at the schedule's
// timing, and a model's change of the timing drops that approval
// (runsMore); a run_now at will would be any timing at all. So a model
// runs its schedule by hand no more often than its timing does: not
// while a run is in progress, not within one period (the gap between its
// next two occurrences) of the last run that started, and a one-shot
// only before it has run. The operator's `demiurge schedules run-now` is
// not bound.
func (m *Manager) modelRunNowRefused(sc Schedule) string {
	if sc.Claim != nil {
		return "a run of it is in progress"
	}
	runs, err := m.Store.Runs(sc.ID, 200)
	if err != nil {
		return "its runs cannot be read: " + err.Error()
	}
	var last time.Time
	for _, r := range runs {
		switch r.Outcome {
		case OutcomeBlocked, OutcomeMissed, OutcomeSkippedOverlap:
			continue // never started
		}
		if r.Started.After(last) {
			last = r.Started
		}
	}
	if last.IsZero() {
		return ""
	}
	now := m.now()
	var period time.Duration
	switch t := sc.Timing; {
	case t.EverySeconds > 0:
		period = time.Duration(t.EverySeconds) * time.Second
	case t.Cron != "":
		if n1 := t.Next(now); !n1.IsZero() {
			if n2 := t.Next(n1); !n2.IsZero() {
				period = n2.Sub(n1)
			}
		}
	}
	if period <= 0 {
		return "a schedule that runs once has run already (the operator's `demiurge schedules run-now` can run it again)"
	}
	if since := now.Sub(last); since < period {
		return fmt.Sprintf("its last run started %s ago, and a model runs it by hand no more often than its timing (%s); the operator's `demiurge schedules run-now %s` can", since.Round(time.Second), sc.Timing.Describe(), sc.ID)
	}
	return ""
}

// notPlain says whether s holds a character termtext replaces (a control
// character but newline and tab, a bidi control, an invisible one): what the model writes into a schedule is read by the
// operator before approving its lease, and must read as it is.
func notPlain(s string) bool {
	return strings.ContainsFunc(s, termtext.Replaced)
}

func checkRel(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\x00\\") || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return fmt.Errorf("%q must be a clean workspace-relative path (no leading /, no ..)", short(p, 64))
	}
	return nil
}

// Approve is the operator's approval (or renewal) of a schedule's lease:
// bound to the core revision, catalog fingerprint and workspace of now. Only the
// operator's command reaches it; no tool call does.
//
// fingerprint is the one `schedules show` printed (ApprovalOf): it must
// be the schedule's as it is now, in the same transaction that approves
// it, so a schedule the agent changed (or a core promoted) after the
// operator read it is refused, never approved unseen.
func (m *Manager) Approve(ctx context.Context, id, by string, days int, fingerprint string) (*Schedule, error) {
	sc, err := m.Store.Get(id)
	if err != nil {
		return nil, err
	}
	rev, cat, err := m.Env.Binding(sc.CoreID)
	if err != nil {
		return nil, fmt.Errorf("core %q cannot be read to bind the lease: %w", sc.CoreID, err)
	}
	ws := m.Env.Workspace()
	now := m.now()
	out, err := m.Store.Update(ctx, id, false, func(s *Schedule) (*runtime.Event, bool, error) {
		if why := fingerprintRefusal(id, fingerprint, Fingerprint(*s, rev, cat, ws)); why != "" {
			return nil, false, invalid("%s", why)
		}
		if days > 0 {
			if days > MaxLeaseDays {
				return nil, false, invalid("a lease lasts at most %d days", MaxLeaseDays)
			}
			s.Lease.Expires = now.Add(time.Duration(days) * 24 * time.Hour)
		} else if !s.Lease.Expires.After(now) {
			s.Lease.Expires = now.Add(30 * 24 * time.Hour)
		}
		s.Lease.CoreRevision, s.Lease.Catalog, s.Lease.ApprovedBy, s.Lease.ApprovedAt = rev, cat, by, now
		s.Lease.Workspace = ws
		data, _ := json.Marshal(map[string]any{"schedule": id, "tools": s.Lease.Tools, "paths": s.Lease.Paths, "commands": s.Lease.Commands,
			"expires": s.Lease.Expires, "core_revision": rev, "catalog": cat, "workspace": ws, "by": by})
		return &runtime.Event{Time: now, Kind: "schedule.lease_approved", Data: data}, false, nil
	})
	if err == nil {
		m.Engine.Arm()
	}
	return out, err
}

// SetPaused pauses or resumes one schedule. A resumed schedule's next
// occurrence counts from now: the paused time is not a backlog.
//
// The operator's pause (session "": `demiurge schedules pause`) is the
// operator's to lift: a model's resume of it is refused, so a schedule
// the operator stopped is not started again by the agent it stopped.
func (m *Manager) SetPaused(ctx context.Context, id string, paused bool, session string) (*Schedule, error) {
	now := m.now()
	operator := session == ""
	out, err := m.Store.Update(ctx, id, false, func(s *Schedule) (*runtime.Event, bool, error) {
		if !paused && !operator && s.Paused && s.PausedByOperator {
			return nil, false, invalid("schedule %s was paused by the operator: only the operator resumes it (`demiurge schedules resume %s`)", id, id)
		}
		if operator || !paused {
			s.PausedByOperator = paused && operator
		}
		s.Paused, s.Updated = paused, now
		if !paused {
			s.Next = s.Timing.Next(now)
		}
		kind := "schedule.resume"
		if paused {
			kind = "schedule.pause"
		}
		data, _ := json.Marshal(map[string]any{"schedule": id})
		return &runtime.Event{Time: now, Kind: kind, Session: session, Data: data}, false, nil
	})
	if err == nil {
		m.Engine.Arm()
	}
	return out, err
}

// Delete removes a schedule, cancelling its running run, and its runs.
func (m *Manager) Delete(ctx context.Context, id, session string) error {
	now := m.now()
	if _, err := m.Store.Get(id); err != nil {
		return err
	}
	m.Engine.Cancel(id, errDeleted)
	_, err := m.Store.Update(ctx, id, false, func(s *Schedule) (*runtime.Event, bool, error) {
		data, _ := json.Marshal(map[string]any{"schedule": id})
		return &runtime.Event{Time: now, Kind: "schedule.delete", Session: session, Data: data}, true, nil
	})
	if err != nil {
		return err
	}
	m.Engine.Arm()
	return m.Store.DeleteRuns(ctx, id)
}

// CancelRun cancels a schedule's running run (the operator's).
func (m *Manager) CancelRun(id string) bool { return m.Engine.Cancel(id, errOperator) }

// PauseAll is the operator's switch over every schedule. Turning it off
// moves each schedule's next occurrence to after now: the paused time is
// not a backlog.
func (m *Manager) PauseAll(ctx context.Context, on bool, by string) error {
	now := m.now()
	if err := m.Store.SetPausedAll(ctx, on, by, now); err != nil {
		return err
	}
	if !on {
		all, err := m.Store.List()
		if err != nil {
			return err
		}
		for _, sc := range all {
			if !sc.Next.IsZero() && !sc.Next.After(now) {
				_, _ = m.Store.Update(ctx, sc.ID, false, func(s *Schedule) (*runtime.Event, bool, error) {
					s.Next = s.Timing.Next(now)
					return nil, false, nil
				})
			}
		}
	}
	m.Engine.Arm()
	return nil
}
