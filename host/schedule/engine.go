package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"demiurge.dev/host/runtime"
)

// Result is what executing a run gave.
type Result struct {
	Outcome Outcome
	Reason  string
	Session string
	Answer  string
	// FirstRequest is when the run's first model request started.
	FirstRequest time.Time
}

// Exec runs one scheduled run (a headless turn in a session of its own)
// until ctx ends. ctx carries the run's wall-time budget.
type Exec func(ctx context.Context, sc Schedule, run Run) Result

// Check is the gate before a run starts: "" lets it start, anything else
// is why it is blocked (an unapproved or expired lease, a changed core
// revision or catalog, an unknown core).
type Check func(sc Schedule, now time.Time) (blocked string)

// MaxSleep bounds the one timer: a suspended machine or a wall-clock
// jump is noticed within it, since a timer counts monotonic time.
const MaxSleep = 10 * time.Minute

// DefaultGrace is the missed-run grace window when a schedule names none.
const DefaultGrace = 5 * time.Minute

// claimMargin is how long a claim outlives its run's wall-time budget.
const claimMargin = time.Minute

// Engine fires due schedules.
type Engine struct {
	Store  Store
	Clock  Clock
	Exec   Exec
	Check  Check
	Holder string // this host's claim name
	// Exclusive says this engine is the only one on its store (the host
	// lock): a claim of another holder found at Start is a dead host's.
	Exclusive bool
	// OnWake, when set, is told of every timer wake (benchmarks, tests).
	OnWake func()

	mu      sync.Mutex
	timer   Timer
	timerAt time.Time
	running map[string]*active
	closed  bool
	wg      sync.WaitGroup
	wakes   atomic.Int64
}

type active struct {
	run    Run
	cancel context.CancelCauseFunc
	done   chan struct{}
}

var (
	errOverlapCancel = errors.New("cancelled: a newer occurrence replaced it (overlap policy cancel)")
	errStopped       = errors.New("cancelled: the host stopped during the run")
	errDeleted       = errors.New("cancelled: the schedule was deleted")
	errOperator      = errors.New("cancelled by the operator")
)

// Start recovers claims left by a dead host and arms the timer.
func (e *Engine) Start(ctx context.Context) error {
	if e.Clock == nil {
		e.Clock = WallClock{}
	}
	if e.Holder == "" {
		e.Holder = fmt.Sprintf("host-%d-%s", os.Getpid(), NewID(""))
	}
	e.mu.Lock()
	e.running = map[string]*active{}
	e.mu.Unlock()
	all, err := e.Store.List()
	if err != nil {
		return err
	}
	now := e.Clock.Now()
	for _, sc := range all {
		c := sc.Claim
		if c == nil || c.Holder == e.Holder || (!e.Exclusive && c.Expires.After(now)) {
			continue
		}
		if err := e.recover(ctx, sc, *c, now); err != nil {
			return err
		}
	}
	e.Arm()
	return nil
}

// recover records a dead holder's run as failed, once, and frees the
// schedule.
func (e *Engine) recover(ctx context.Context, sc Schedule, c Claim, now time.Time) error {
	done, err := e.Store.HasRun(sc.ID, c.Run)
	if err != nil {
		return err
	}
	if !done {
		r := Run{ID: c.Run, Schedule: sc.ID, Occurrence: c.Occurrence, Started: c.Occurrence, Ended: now,
			Outcome: OutcomeError, Reason: fmt.Sprintf("the host running it (%s) ended during the run; recorded failed once, the next occurrence runs as usual", c.Holder), Holder: c.Holder}
		if err := e.Store.PutRun(ctx, r, runEvent(r, now)); err != nil {
			return err
		}
	}
	_, err = e.Store.Update(ctx, sc.ID, false, func(s *Schedule) (*runtime.Event, bool, error) {
		if s.Claim != nil && s.Claim.Run == c.Run {
			s.Claim, s.LastRun, s.Last = nil, c.Run, OutcomeError
		}
		return nil, false, nil
	})
	return err
}

// Wakes counts the timer's wakes.
func (e *Engine) Wakes() int64 { return e.wakes.Load() }

// NextWake is when the timer fires (zero: no timer).
func (e *Engine) NextWake() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.timerAt
}

// Running is the number of runs in progress.
func (e *Engine) Running() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.running)
}

// NextDue is the earliest next occurrence of an active schedule (zero:
// none, or everything paused).
func (e *Engine) NextDue() (time.Time, string) {
	if p, _ := e.Store.PausedAll(); p {
		return time.Time{}, ""
	}
	all, _ := e.Store.List()
	var at time.Time
	var id string
	for _, sc := range all {
		if sc.Paused || sc.Next.IsZero() {
			continue
		}
		due := sc.Next
		if c := sc.Claim; c != nil && c.Holder != e.Holder && c.Expires.After(due) {
			due = c.Expires // another host's live claim: look again when it lapses
		}
		if at.IsZero() || due.Before(at) {
			at, id = due, sc.ID
		}
	}
	return at, id
}

// Arm sets the one timer for the earliest due schedule (none when no
// schedule is active).
func (e *Engine) Arm() {
	at, _ := e.NextDue()
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if e.timer != nil {
		e.timer.Stop()
		e.timer, e.timerAt = nil, time.Time{}
	}
	if at.IsZero() {
		return
	}
	d := max(at.Sub(e.Clock.Now()), 0)
	d = min(d, MaxSleep)
	e.timerAt = e.Clock.Now().Add(d)
	e.timer = e.Clock.AfterFunc(d, e.wake)
}

// wake runs what is due and re-arms.
func (e *Engine) wake() {
	e.wakes.Add(1)
	if e.OnWake != nil {
		e.OnWake()
	}
	e.RunDue(context.Background())
	e.Arm()
}

// RunDue handles every schedule due now.
func (e *Engine) RunDue(ctx context.Context) {
	if p, _ := e.Store.PausedAll(); p {
		return
	}
	all, err := e.Store.List()
	if err != nil {
		return
	}
	now := e.Clock.Now()
	for _, sc := range all {
		if sc.Paused || sc.Next.IsZero() || sc.Next.After(now) {
			continue
		}
		if c := sc.Claim; c != nil && c.Holder != e.Holder && c.Expires.After(now) {
			continue // another host runs it
		}
		e.due(ctx, sc, now)
	}
}

// due handles one due schedule: the missed-run policy, then a start.
func (e *Engine) due(ctx context.Context, sc Schedule, now time.Time) {
	occ := sc.Next
	next := sc.Timing.Next(now)
	grace := time.Duration(sc.GraceSeconds) * time.Second
	if sc.GraceSeconds == 0 {
		grace = DefaultGrace
	}
	if now.Sub(occ) <= grace {
		e.start(ctx, sc, occ, next, startOpts{})
		return
	}
	// The backlog: every occurrence from occ up to now, collapsed.
	n := 0
	for t := occ; !t.IsZero() && !t.After(now) && n < 100000; t = sc.Timing.Next(t) {
		n++
	}
	if sc.Missed == MissedCatchUp {
		e.start(ctx, sc, occ, next, startOpts{catchUp: true, missed: n})
		return
	}
	r := Run{ID: runID(now), Schedule: sc.ID, Occurrence: occ, Started: now, Ended: now, Outcome: OutcomeMissed, Missed: n,
		Reason: fmt.Sprintf("%d occurrence(s) from %s passed beyond the %s grace window (the host was down or the clock jumped); missed policy skip", n, occ.Format(time.RFC3339), grace)}
	e.finishWithout(ctx, sc, r, next)
}

// foldInto is the schedule's newest record when r, a run that never
// started, repeats it: the same blocked or skipped_overlap outcome with
// the same reason.
func (e *Engine) foldInto(id string, r Run) (Run, bool) {
	if r.Outcome != OutcomeBlocked && r.Outcome != OutcomeSkippedOverlap {
		return Run{}, false
	}
	last, err := e.Store.Runs(id, 1)
	if err != nil || len(last) != 1 || last[0].Outcome != r.Outcome || last[0].Reason != r.Reason {
		return Run{}, false
	}
	return last[0], true
}

type startOpts struct {
	manual, catchUp, dequeued bool
	missed                    int
}

// finishWithout records a run that never started and moves Next on.
func (e *Engine) finishWithout(ctx context.Context, sc Schedule, r Run, next time.Time) {
	if prev, ok := e.foldInto(sc.ID, r); ok {
		// The same refusal again: one record (and its one audit event)
		// stands for the run of them, however often the timing fires.
		prev.Repeats++
		prev.Ended = r.Ended
		r = prev
		_ = e.Store.PutRun(ctx, r, nil)
	} else {
		_ = e.Store.PutRun(ctx, r, runEvent(r, r.Ended))
	}
	_, _ = e.Store.Update(ctx, sc.ID, false, func(s *Schedule) (*runtime.Event, bool, error) {
		if !next.IsZero() || r.Occurrence.Equal(s.Next) {
			s.Next = next
		}
		s.LastRun, s.Last = r.ID, r.Outcome
		return nil, false, nil
	})
}

// start claims and starts one run of sc for occurrence occ; next is the
// schedule's following occurrence (kept as is for a manual run).
func (e *Engine) start(ctx context.Context, sc Schedule, occ, next time.Time, o startOpts) {
	now := e.Clock.Now()
	if o.manual || o.dequeued {
		next = sc.Next
	}
	r := Run{ID: runID(now), Schedule: sc.ID, Occurrence: occ, Started: now, Manual: o.manual, CatchUp: o.catchUp, Missed: o.missed, Holder: e.Holder}
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return
	}
	if cur := e.running[sc.ID]; cur != nil {
		switch sc.Overlap {
		case OverlapQueue:
			e.mu.Unlock()
			e.queue(ctx, sc, occ, next, r)
			return
		case OverlapCancel:
			e.mu.Unlock()
			cur.cancel(errOverlapCancel)
			<-cur.done
			e.start(ctx, sc, occ, next, o)
			return
		default:
			e.mu.Unlock()
			r.Ended, r.Outcome = now, OutcomeSkippedOverlap
			r.Reason = fmt.Sprintf("run %s of this schedule was still running (overlap policy skip)", cur.run.ID)
			e.finishWithout(ctx, sc, r, next)
			return
		}
	}
	if why := e.check(sc, now); why != "" {
		e.mu.Unlock()
		r.Ended, r.Outcome, r.Reason = now, OutcomeBlocked, why
		e.finishWithout(ctx, sc, r, next)
		return
	}
	wall := time.Duration(sc.Budget.WallSeconds) * time.Second
	if wall <= 0 {
		wall = DefaultBudget.wall()
	}
	claim := Claim{Run: r.ID, Occurrence: occ, Holder: e.Holder, Expires: now.Add(wall + claimMargin)}
	_, err := e.Store.Update(ctx, sc.ID, false, func(s *Schedule) (*runtime.Event, bool, error) {
		if c := s.Claim; c != nil && c.Expires.After(now) {
			return nil, false, fmt.Errorf("occurrence claimed by %s until %s", c.Holder, c.Expires.Format(time.RFC3339))
		}
		if !o.manual && !o.dequeued && !s.Next.Equal(occ) {
			return nil, false, errors.New("occurrence already handled")
		}
		s.Claim, s.Next = &claim, next
		if o.dequeued {
			s.Queued = nil
		}
		return nil, false, nil
	})
	if err != nil {
		e.mu.Unlock()
		return
	}
	rctx, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	a := &active{run: r, cancel: cancel, done: make(chan struct{})}
	e.running[sc.ID] = a
	e.wg.Add(1)
	e.mu.Unlock()
	go e.execute(rctx, sc, a, wall)
}

func (e *Engine) check(sc Schedule, now time.Time) string {
	if e.Check == nil {
		return "no lease check is configured in this host"
	}
	return e.Check(sc, now)
}

// queue keeps one occurrence waiting for the running run.
func (e *Engine) queue(ctx context.Context, sc Schedule, occ, next time.Time, r Run) {
	queued := false
	_, _ = e.Store.Update(ctx, sc.ID, false, func(s *Schedule) (*runtime.Event, bool, error) {
		if s.Queued == nil {
			s.Queued, queued = &occ, true
		}
		s.Next = next
		return nil, false, nil
	})
	if !queued {
		now := e.Clock.Now()
		r.Ended, r.Outcome, r.Reason = now, OutcomeSkippedOverlap, "one occurrence already waits for the running run (overlap policy queue keeps one)"
		e.finishWithout(ctx, sc, r, next)
	}
}

// execute runs one claimed run and records its end.
func (e *Engine) execute(ctx context.Context, sc Schedule, a *active, wall time.Duration) {
	defer e.wg.Done()
	tctx, cancel := context.WithTimeout(ctx, wall)
	res := e.Exec(tctx, sc, a.run)
	timedOut := errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	cancel()
	r := a.run
	r.Ended = e.Clock.Now()
	r.Session, r.Answer, r.FirstRequest = res.Session, short(res.Answer, 2000), res.FirstRequest
	r.Outcome, r.Reason = res.Outcome, res.Reason
	switch cause := context.Cause(ctx); {
	case cause != nil:
		r.Outcome, r.Reason = OutcomeCancelled, cause.Error()
	case timedOut:
		r.Outcome, r.Reason = OutcomeTimeout, fmt.Sprintf("the run passed its wall-time budget of %s", wall)
	}
	if !r.Outcome.Valid() {
		r.Outcome, r.Reason = OutcomeError, fmt.Sprintf("the run ended with outcome %q, outside the closed set: %s", r.Outcome, r.Reason)
	}
	bg := context.Background()
	_ = e.Store.PutRun(bg, r, runEvent(r, r.Ended))
	var queued *time.Time
	_, _ = e.Store.Update(bg, sc.ID, false, func(s *Schedule) (*runtime.Event, bool, error) {
		if s.Claim != nil && s.Claim.Run == r.ID {
			s.Claim = nil
		}
		s.LastRun, s.Last = r.ID, r.Outcome
		queued = s.Queued
		return nil, false, nil
	})
	e.mu.Lock()
	delete(e.running, sc.ID)
	closed := e.closed
	e.mu.Unlock()
	close(a.done)
	if queued != nil && !closed && context.Cause(ctx) != errDeleted {
		if cur, err := e.Store.Get(sc.ID); err == nil && !cur.Paused {
			e.start(bg, *cur, *queued, cur.Next, startOpts{dequeued: true})
		}
	}
	e.Arm()
}

// RunNow starts a manual run of id at once (its overlap policy applies).
func (e *Engine) RunNow(ctx context.Context, id string) error {
	sc, err := e.Store.Get(id)
	if err != nil {
		return err
	}
	e.start(ctx, *sc, e.Clock.Now(), sc.Next, startOpts{manual: true})
	return nil
}

// Cancel cancels a schedule's running run (false: none runs).
func (e *Engine) Cancel(id string, cause error) bool {
	e.mu.Lock()
	a := e.running[id]
	e.mu.Unlock()
	if a == nil {
		return false
	}
	a.cancel(cause)
	<-a.done
	return true
}

// Stop cancels the running runs (recorded cancelled) and the timer.
func (e *Engine) Stop() {
	e.mu.Lock()
	e.closed = true
	if e.timer != nil {
		e.timer.Stop()
		e.timer, e.timerAt = nil, time.Time{}
	}
	var runs []*active
	for _, a := range e.running {
		runs = append(runs, a)
	}
	e.mu.Unlock()
	for _, a := range runs {
		a.cancel(errStopped)
	}
	e.wg.Wait()
}

// runEvent is a run's audit event.
func runEvent(r Run, at time.Time) *runtime.Event {
	data, _ := json.Marshal(map[string]any{"schedule": r.Schedule, "run": r.ID, "outcome": r.Outcome, "reason": r.Reason,
		"occurrence": r.Occurrence, "manual": r.Manual, "catch_up": r.CatchUp, "missed": r.Missed})
	return &runtime.Event{Time: at, Kind: "schedule.run", Session: r.Session, Data: data}
}

// runID is a run id that sorts by start time (the runs listing's order).
func runID(start time.Time) string {
	return fmt.Sprintf("run_%016x%s", start.UnixNano(), NewID("")[:4])
}

func short(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
