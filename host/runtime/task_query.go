package runtime

import (
	"context"
	"fmt"
	"time"
)

// The queries of a task manager, all scoped: a task outside the scope
// answers as a missing one.

// liveTask is the task id if this manager runs it and scope owns it.
func (m *TaskManager) liveTask(scope TaskScope, id string) *liveTask {
	m.mu.Lock()
	defer m.mu.Unlock()
	lt := m.live[id]
	if lt == nil || !scope.owns(&lt.owner) {
		return nil
	}
	return lt
}

// Get returns a task in scope: a live one as it is now, an ended one as
// recorded.
func (m *TaskManager) Get(scope TaskScope, id string) (Task, error) {
	if lt := m.liveTask(scope, id); lt != nil {
		return lt.snapshot(), nil
	}
	return m.store.Task(scope, id)
}

// List returns the tasks in scope, newest first, live ones as they are now.
func (m *TaskManager) List(scope TaskScope) ([]Task, error) {
	ts, err := m.store.Tasks(scope)
	if err != nil {
		return nil, err
	}
	for i := range ts {
		if lt := m.liveTask(scope, ts[i].ID); lt != nil {
			ts[i] = lt.snapshot()
		}
	}
	return ts, nil
}

// Wait waits until the task has ended or timeout has passed, and returns
// its status then; timedOut says the task was still running. A timeout is
// not a failure of the task.
func (m *TaskManager) Wait(ctx context.Context, scope TaskScope, id string, timeout time.Duration) (t Task, timedOut bool, err error) {
	lt := m.liveTask(scope, id)
	if lt == nil {
		t, err = m.store.Task(scope, id)
		return t, false, err
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-lt.done:
		return lt.snapshot(), false, nil
	case <-timer.C:
		return lt.snapshot(), true, nil
	case <-ctx.Done():
		return lt.snapshot(), true, nil
	}
}

// Cancel seals a running task as cancelled, cancels its work (which kills
// its process tree), and returns once its end is durable and published.
// Cancelling an ended task returns it as it ended. Concurrent cancels share
// the one cancellation.
func (m *TaskManager) Cancel(ctx context.Context, scope TaskScope, id string) (Task, error) {
	lt := m.liveTask(scope, id)
	if lt == nil {
		return m.store.Task(scope, id)
	}
	lt.seal(TaskCancelled, ExitReasonCancelled, "")
	select {
	case <-lt.done:
		return lt.snapshot(), nil
	case <-ctx.Done():
		return lt.snapshot(), fmt.Errorf("cancel task %s: still ending: %w", id, ctx.Err())
	}
}

// Logs calls fn with the stored chunks of a task in scope after seq after,
// in order. With follow it keeps going until the task has ended and every
// chunk is delivered, or ctx ends.
func (m *TaskManager) Logs(ctx context.Context, scope TaskScope, id string, after uint64, follow bool, fn func(LogChunk) error) error {
	const page = 256
	ended := false
	for {
		lt := m.liveTask(scope, id)
		chunks, err := m.store.TaskLogs(scope, id, after, page)
		if err != nil {
			return err
		}
		for _, c := range chunks {
			if err := fn(c); err != nil {
				return err
			}
			after = c.Seq
		}
		if len(chunks) == page {
			continue
		}
		if !follow || lt == nil || ended {
			// Ended (its last chunks were written before its end was
			// published, and this pass read them) or not asked to follow.
			return nil
		}
		select {
		case <-lt.done:
			ended = true
		case <-time.After(flushEvery):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Running is how many tasks this manager has not yet finished.
func (m *TaskManager) Running() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, lt := range m.live {
		select {
		case <-lt.done:
		default:
			n++
		}
	}
	return n
}

// WaitAll waits until every task started so far has ended, or ctx ends.
func (m *TaskManager) WaitAll(ctx context.Context) error {
	m.mu.Lock()
	var dones []chan struct{}
	for _, lt := range m.live {
		dones = append(dones, lt.done)
	}
	m.mu.Unlock()
	for _, d := range dones {
		select {
		case <-d:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
