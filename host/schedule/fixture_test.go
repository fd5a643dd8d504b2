package schedule

import (
	"context"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
)

// manualClock is the injectable clock: time moves only when the test
// says, and a due timer fires then.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*manualTimer
}

type manualTimer struct {
	c       *manualClock
	at      time.Time
	f       func()
	stopped bool
}

func (t *manualTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.stopped
	t.stopped = true
	return was
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &manualTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// pending is the number of live timers.
func (c *manualClock) pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, t := range c.timers {
		if !t.stopped {
			n++
		}
	}
	return n
}

// Set moves the clock to at (a jump either way) and fires the timers now
// due, in order, each on the caller's goroutine.
func (c *manualClock) Set(at time.Time) {
	c.mu.Lock()
	c.now = at
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var due []*manualTimer
		for _, t := range c.timers {
			if !t.stopped && !t.at.After(c.now) {
				due = append(due, t)
			}
		}
		sort.Slice(due, func(i, j int) bool { return due[i].at.Before(due[j].at) })
		if len(due) == 0 {
			c.mu.Unlock()
			return
		}
		due[0].stopped = true
		c.mu.Unlock()
		due[0].f()
	}
}

func (c *manualClock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

// env is a host with one core, a few tools and a binding the test moves.
type env struct {
	mu        sync.Mutex
	revision  string
	catalog   string
	workspace string
}

func (e *env) Workspace() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.workspace
}

func (e *env) CoreKnown(id string) (bool, []string) { return id == "main", []string{"main"} }
func (e *env) DefaultCore() string                  { return "main" }
func (e *env) ToolKnown(_, tool string) bool {
	return tool == "read_file" || tool == "write_file" || tool == "terminal" || tool == ToolName
}
func (e *env) Binding(string) (string, string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.revision, e.catalog, nil
}

// execs records the runs executed; hold blocks them until released.
type execs struct {
	mu      sync.Mutex
	runs    []Run
	started chan Run
	release chan struct{}
	result  Result
}

func (x *execs) exec(ctx context.Context, sc Schedule, r Run) Result {
	x.mu.Lock()
	x.runs = append(x.runs, r)
	x.mu.Unlock()
	if x.started != nil {
		x.started <- r
	}
	if x.release != nil {
		select {
		case <-x.release:
		case <-ctx.Done():
			return Result{Outcome: OutcomeCancelled}
		}
	}
	if x.result.Outcome == "" {
		return Result{Outcome: OutcomeOK, Answer: "done"}
	}
	return x.result
}

func (x *execs) count() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.runs)
}

type rig struct {
	t     *testing.T
	rt    *runtime.Store
	clock *manualClock
	env   *env
	ex    *execs
	eng   *Engine
	mgr   *Manager
	path  string
}

var t0 = time.Date(2026, 3, 2, 6, 0, 0, 0, time.UTC) // a Monday

func newRig(t *testing.T) *rig {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	return openRig(t, path, &manualClock{now: t0}, &execs{})
}

func openRig(t *testing.T, path string, clock *manualClock, ex *execs) *rig {
	t.Helper()
	rt, err := runtime.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, rt: rt, clock: clock, env: &env{revision: "rev1", catalog: "cat1"}, ex: ex, path: path}
	st := NewStore(rt)
	r.eng = &Engine{Store: st, Clock: clock, Exec: ex.exec, Exclusive: true, Check: func(sc Schedule, now time.Time) string {
		rev, cat, _ := r.env.Binding(sc.CoreID)
		return CheckLease(sc, now, rev, cat, r.env.Workspace())
	}}
	r.mgr = &Manager{Store: st, Engine: r.eng, Env: r.env}
	if err := r.eng.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.close() })
	return r
}

func (r *rig) close() {
	if r.rt == nil {
		return
	}
	r.eng.Stop()
	r.rt.Close()
	r.rt = nil
}

func ptr[T any](v T) *T { return &v }

// create makes a schedule with an approved lease for read_file.
func (r *rig) create(spec Spec) *Schedule {
	r.t.Helper()
	if spec.Prompt == nil {
		spec.Prompt = ptr("summarise yesterday's failing CI runs")
	}
	if spec.Lease == nil {
		spec.Lease = &LeaseSpec{Tools: []string{"read_file"}, Paths: []string{"ci/**"}}
	}
	sc, err := r.mgr.Create(context.Background(), spec, "operator", "ses_1")
	if err != nil {
		r.t.Fatal(err)
	}
	if sc, err = r.approve(sc.ID, 0); err != nil {
		r.t.Fatal(err)
	}
	return sc
}

// waitIdle waits for the engine's runs to end.
// stepRun advances the clock a minute, lets the due run end, and checks
// the schedule's last run: blocked with a reason naming want, or ok when
// want is "".
func (r *rig) stepRun(id, want string) {
	r.t.Helper()
	r.clock.Advance(time.Minute)
	r.waitIdle()
	last := r.runs(id)[0]
	if !strings.Contains(last.Reason, want) || (want != "" && last.Outcome != OutcomeBlocked) || (want == "" && last.Outcome != OutcomeOK) {
		r.t.Fatalf("run %s %q, want reason with %q", last.Outcome, last.Reason, want)
	}
}

func (r *rig) waitIdle() {
	r.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for r.eng.Running() > 0 {
		if time.Now().After(deadline) {
			r.t.Fatal("runs did not end")
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (r *rig) runs(id string) []Run {
	r.t.Helper()
	runs, err := r.mgr.Store.Runs(id, 0)
	if err != nil {
		r.t.Fatal(err)
	}
	return runs
}

func outcomes(runs []Run) []Outcome {
	var out []Outcome
	for i := len(runs) - 1; i >= 0; i-- {
		out = append(out, runs[i].Outcome)
	}
	return out
}

// approve approves id as the operator does: with the fingerprint of the
// schedule as it is now (what `schedules show` prints).
func (r *rig) approve(id string, days int) (*Schedule, error) {
	r.t.Helper()
	sc, err := r.mgr.Store.Get(id)
	if err != nil {
		return nil, err
	}
	a, err := r.mgr.ApprovalOf(*sc)
	if err != nil {
		return nil, err
	}
	return r.mgr.Approve(context.Background(), id, "operator", days, a.Fingerprint)
}
