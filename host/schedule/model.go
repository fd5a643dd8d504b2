package schedule

import (
	"time"
)

// Outcome is how a run ended: a closed set.
type Outcome string

const (
	OutcomeOK             Outcome = "ok"
	OutcomeError          Outcome = "error"
	OutcomeBlocked        Outcome = "blocked"
	OutcomeSkippedOverlap Outcome = "skipped_overlap"
	OutcomeMissed         Outcome = "missed"
	OutcomeCancelled      Outcome = "cancelled"
	OutcomeTimeout        Outcome = "timeout"
	OutcomeBudgetExceeded Outcome = "budget_exceeded"
)

// Outcomes lists the closed set, in the order the docs give it.
var Outcomes = []Outcome{OutcomeOK, OutcomeError, OutcomeBlocked, OutcomeSkippedOverlap,
	OutcomeMissed, OutcomeCancelled, OutcomeTimeout, OutcomeBudgetExceeded}

// Valid reports whether o is one of Outcomes.
func (o Outcome) Valid() bool {
	for _, x := range Outcomes {
		if o == x {
			return true
		}
	}
	return false
}

// Missed-run policies: what the backlog of occurrences older than the
// grace window collapses into.
const (
	MissedCatchUp = "catch_up" // one run for the whole backlog
	MissedSkip    = "skip"     // no run; one run record with outcome missed
)

// Overlap policies: what a due occurrence does while the schedule's
// previous run still runs.
const (
	OverlapSkip   = "skip"   // recorded skipped_overlap
	OverlapQueue  = "queue"  // at most one waits, started when the running one ends
	OverlapCancel = "cancel" // the running one is cancelled, this one starts
)

// Budget bounds one run.
type Budget struct {
	Steps        int   `json:"steps"`
	OutputTokens int   `json:"output_tokens"`
	WallSeconds  int64 `json:"wall_seconds"`
}

// Lease is what the operator approved a schedule's runs to do with no
// one present, bound to what it was approved against. Only an operator
// command (never a tool call, never a run) writes it.
type Lease struct {
	// Tools the runs may call; a call of another tool is denied.
	Tools []string `json:"tools"`
	// Paths (workspace-relative, a trailing /** for a tree) that path
	// arguments must fall under; empty: no path argument is approved.
	Paths []string `json:"paths,omitempty"`
	// Commands are exact command lines (or a prefix ending in " *") the
	// runs may execute; empty: none.
	Commands []string  `json:"commands,omitempty"`
	Expires  time.Time `json:"expires"`
	// CoreRevision and Catalog are what the lease was approved against.
	CoreRevision string `json:"core_revision"`
	Catalog      string `json:"catalog_fingerprint"`
	// Workspace is the host's workspace when it was approved: its Paths
	// are relative to it, and a host of another workspace (one state
	// serves several projects in turn) runs none of it.
	Workspace  string    `json:"workspace,omitempty"`
	ApprovedBy string    `json:"approved_by"`
	ApprovedAt time.Time `json:"approved_at"`
}

// Approved reports whether the operator has approved a lease.
func (l Lease) Approved() bool { return !l.ApprovedAt.IsZero() }

// Claim guards one run of a schedule: who holds it, for which
// occurrence, until when.
type Claim struct {
	Run        string    `json:"run"`
	Occurrence time.Time `json:"occurrence"`
	Holder     string    `json:"holder"`
	Expires    time.Time `json:"expires"`
}

// Schedule is one stored schedule.
type Schedule struct {
	ID     string `json:"id"`
	Prompt string `json:"prompt"`
	CoreID string `json:"core_id"`
	Timing Timing `json:"timing"`
	// Tools narrows the run's catalog (empty: the lease's tools).
	Tools  []string `json:"tools,omitempty"`
	Budget Budget   `json:"budget"`
	// ResultFile, when set, is a workspace-relative file the run's
	// answer is also written to (the run's session always has it).
	ResultFile   string `json:"result_file,omitempty"`
	Missed       string `json:"missed"`
	GraceSeconds int64  `json:"grace_seconds"`
	Overlap      string `json:"overlap"`
	Paused       bool   `json:"paused,omitempty"`
	// PausedByOperator: the pause is the operator's; only the operator
	// lifts it (a model's resume is refused).
	PausedByOperator bool  `json:"paused_by_operator,omitempty"`
	Lease            Lease `json:"lease"`
	// Principal and Session created it.
	Principal string    `json:"principal"`
	Session   string    `json:"session,omitempty"`
	Created   time.Time `json:"created"`
	Updated   time.Time `json:"updated"`
	// Next is the next occurrence due (zero: none: a one-shot that ran).
	Next  time.Time `json:"next,omitempty"`
	Claim *Claim    `json:"claim,omitempty"`
	// Queued says one occurrence waits for the running run (overlap queue).
	Queued  *time.Time `json:"queued,omitempty"`
	LastRun string     `json:"last_run,omitempty"`
	Last    Outcome    `json:"last_outcome,omitempty"`
}

// Run is one run record.
type Run struct {
	ID         string    `json:"id"`
	Schedule   string    `json:"schedule"`
	Occurrence time.Time `json:"occurrence"`
	Started    time.Time `json:"started"`
	Ended      time.Time `json:"ended,omitempty"`
	// Outcome is empty while the run runs.
	Outcome Outcome `json:"outcome,omitempty"`
	Reason  string  `json:"reason,omitempty"`
	Session string  `json:"session,omitempty"`
	// Manual is a run_now; CatchUp a run standing for Missed missed
	// occurrences.
	Manual  bool   `json:"manual,omitempty"`
	CatchUp bool   `json:"catch_up,omitempty"`
	Missed  int    `json:"missed,omitempty"`
	Answer  string `json:"answer,omitempty"`
	Holder  string `json:"holder,omitempty"`
	// FirstRequest is when its first model request started (lateness).
	FirstRequest time.Time `json:"first_request,omitempty"`
	// Repeats counts the later occurrences that ended as this one did
	// (the same outcome and reason, one after another, none started: a
	// blocked or skipped_overlap record), folded into it; Ended is the
	// last one's. So a schedule blocked every second grows one record.
	Repeats int `json:"repeats,omitempty"`
}

func (b Budget) wall() time.Duration { return time.Duration(b.WallSeconds) * time.Second }
