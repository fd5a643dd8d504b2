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
}

func watchCompletions(h *toolhost.Host, loop *turn.Loop) *completionWatch {
	w := &completionWatch{heard: map[string]bool{}, ch: make(chan struct{}, 1)}
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

// awaitBackground keeps a headless run alive while the background tasks
// its session started run, so that each end no yield_until consumed gets
// its completion turn before the process exits. It reports false when
// ctx ended first: the tasks were cancelled.
func awaitBackground(ctx context.Context, errw io.Writer, h *toolhost.Host, s *toolhost.Session, loop *turn.Loop, w *completionWatch) bool {
	m, err := h.Tasks()
	if err != nil {
		return true
	}
	for m.Running() > 0 {
		fmt.Fprintf(errw, "demiurge: %d background task(s) running; waiting for them to end so the model hears of it (Ctrl-C cancels them)\n", m.Running())
		if m.WaitAll(ctx) != nil {
			fmt.Fprintln(errw, "demiurge: cancelling the background tasks")
			m.CancelAll(runtime.ExitReasonCancelled)
			return false
		}
		ts, _ := m.List(s.TaskScope())
		var ids []string
		for _, t := range ts {
			if t.State.Terminal() {
				ids = append(ids, t.ID)
			}
		}
		w.heardAll(ids)
		drained := make(chan struct{})
		go func() {
			loop.Drain()
			close(drained)
		}()
		select {
		case <-drained:
		case <-ctx.Done():
			loop.Close() // cancels the completion turn
			<-drained
			return false
		}
	}
	return true
}
