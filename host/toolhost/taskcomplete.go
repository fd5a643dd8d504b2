package toolhost

import (
	"sync"

	"demiurge.dev/host/runtime"
)

// taskListeners are told of every task's end, after it is durable: the
// turn loops of live sessions (their background-completion turns).
type taskListeners struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(runtime.Task)
}

// OnTaskComplete has fn told of every background task's end once its
// terminal state is durable (from the task's goroutine: fn must not
// block). The returned func stops it.
func (h *Host) OnTaskComplete(fn func(runtime.Task)) (stop func()) {
	l := &h.tasks.listeners
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fns == nil {
		l.fns = map[int]func(runtime.Task){}
	}
	id := l.next
	l.next++
	l.fns[id] = fn
	return func() {
		l.mu.Lock()
		delete(l.fns, id)
		l.mu.Unlock()
	}
}

func (l *taskListeners) notify(t runtime.Task) {
	l.mu.Lock()
	fns := make([]func(runtime.Task), 0, len(l.fns))
	for _, fn := range l.fns {
		fns = append(fns, fn)
	}
	l.mu.Unlock()
	for _, fn := range fns {
		fn(t)
	}
}
