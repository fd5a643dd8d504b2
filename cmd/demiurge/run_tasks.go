package main

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// completionWatch hands the host's task ends to the loop (its
// background-completion turns) and remembers which it handed over.
type completionWatch struct {
	mu    sync.Mutex
	heard map[string]bool
	ch    chan struct{}
	stop  func()
	// since is when the watch began: only tasks that end after it are
	// handed to it (a resumed session's older ends never are).
	since time.Time
}

func watchCompletions(h *toolhost.Host, loop *turn.Loop) *completionWatch {
	w := &completionWatch{heard: map[string]bool{}, ch: make(chan struct{}, 1), since: time.Now()}
	w.stop = h.OnTaskComplete(func(t runtime.Task) {
		loop.TaskEnded(t)
		w.mu.Lock()
		w.heard[t.ID] = true
		w.mu.Unlock()
		select {
		case w.ch <- struct{}{}:
		default:
		}
	})
	return w
}

// heardAll waits, up to a bound, until every ended task of ids was handed
// to the loop (the hook runs just after a task's end is durable).
func (w *completionWatch) heardAll(ids []string) {
	deadline := time.After(5 * time.Second)
	for {
		w.mu.Lock()
		missing := 0
		for _, id := range ids {
			if !w.heard[id] {
				missing++
			}
		}
		w.mu.Unlock()
		if missing == 0 {
			return
		}
		select {
		case <-w.ch:
		case <-deadline:
			return
		}
	}
}

// backgroundTasks are the tasks a headless run waits for: the whole
// host's in process (the command is the host), the session's own in the
// long-lived host (other front ends' tasks are not this run's).
type backgroundTasks interface {
	running() int
	waitAll(ctx context.Context) error
	cancelAll()
}

type wholeHostTasks struct{ h *toolhost.Host }

func (w wholeHostTasks) running() int {
	m, err := w.h.Tasks()
	if err != nil {
		return 0
	}
	return m.Running()
}

func (w wholeHostTasks) waitAll(ctx context.Context) error {
	m, err := w.h.Tasks()
	if err != nil {
		return nil
	}
	return m.WaitAll(ctx)
}

func (w wholeHostTasks) cancelAll() {
	if m, err := w.h.Tasks(); err == nil {
		m.CancelAll(runtime.ExitReasonCancelled)
	}
}

// sessionTasks are one session's tasks in the long-lived host.
type sessionTasks struct {
	h *toolhost.Host
	s *toolhost.Session
}

func (t sessionTasks) live() []runtime.Task {
	m, err := t.h.Tasks()
	if err != nil {
		return nil
	}
	ts, _ := m.List(t.s.TaskScope())
	var out []runtime.Task
	for _, x := range ts {
		// A cancelled task shows its sealed state while its work still
		// ends: it is live until its end is durable (Ended set), when
		// its completion hook runs.
		if !x.State.Terminal() || x.Ended.IsZero() {
			out = append(out, x)
		}
	}
	return out
}

func (t sessionTasks) running() int { return len(t.live()) }

func (t sessionTasks) waitAll(ctx context.Context) error {
	m, err := t.h.Tasks()
	if err != nil {
		return nil
	}
	for _, x := range t.live() {
		if _, _, err := m.Wait(ctx, t.s.TaskScope(), x.ID, 24*time.Hour); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

func (t sessionTasks) cancelAll() {
	m, err := t.h.Tasks()
	if err != nil {
		return
	}
	for _, x := range t.live() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		m.Cancel(ctx, t.s.TaskScope(), x.ID)
		cancel()
	}
}

// awaitBackground keeps a headless run alive while the background tasks
// its session started run, so that each end no yield_until consumed gets
// its completion turn before the run ends. It reports false when ctx
// ended first: the tasks were cancelled. A model that starts another
// task in every completion turn would keep the run alive forever: after
// maxCompletionRounds rounds the run stops waiting, cancels what still
// runs and fails (errCompletionBound).
func awaitBackground(ctx context.Context, errw io.Writer, h *toolhost.Host, tasks backgroundTasks, s *toolhost.Session, loop *turn.Loop, w *completionWatch) (bool, error) {
	m, err := h.Tasks()
	if err != nil {
		return true, nil
	}
	for round := 1; tasks.running() > 0; round++ {
		if round > maxCompletionRounds {
			fmt.Fprintf(errw, "demiurge: cancelling %d background task(s)\n", tasks.running())
			tasks.cancelAll()
			return true, errCompletionBound
		}
		fmt.Fprintf(errw, "demiurge: %d background task(s) running; waiting for them to end so the model hears of it (Ctrl-C cancels them)\n", tasks.running())
		if tasks.waitAll(ctx) != nil || ctx.Err() != nil {
			fmt.Fprintln(errw, "demiurge: cancelling the background tasks")
			tasks.cancelAll()
			return false, nil
		}
		w.heardEnded(m, s)
		if !drainCompletions(ctx, loop) {
			return false, nil
		}
	}
	// A task that ended while the turn still ran (a quick background
	// child) has nothing left running to wait for, but its end may not
	// have reached the loop yet (the hook runs just after the end is
	// durable): wait for it, so its completion turn runs before the run
	// ends.
	w.heardEnded(m, s)
	return drainCompletions(ctx, loop), nil
}

// heardEnded waits, up to heardAll's bound, until every task of s that
// ended since the watch began was handed to the loop.
func (w *completionWatch) heardEnded(m *runtime.TaskManager, s *toolhost.Session) {
	ts, _ := m.List(s.TaskScope())
	var ids []string
	for _, t := range ts {
		if t.State.Terminal() && !t.Ended.Before(w.since) {
			ids = append(ids, t.ID)
		}
	}
	w.heardAll(ids)
}

// drainCompletions waits for the loop's queued completion turns; false
// when ctx ended first (the completion turn was cancelled).
func drainCompletions(ctx context.Context, loop *turn.Loop) bool {
	drained := make(chan struct{})
	go func() {
		loop.Drain()
		close(drained)
	}()
	select {
	case <-drained:
		return true
	case <-ctx.Done():
		loop.Close() // cancels the completion turn
		<-drained
		return false
	}
}

// maxCompletionRounds bounds how often a headless run waits for
// background tasks and gives their ends a completion turn.
const maxCompletionRounds = 8

var errCompletionBound = fmt.Errorf("background tasks were still starting after %d rounds of completion turns; the run stops here (the model started a new task in each)", maxCompletionRounds)
