package worker

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"
)

// MaxIdle is how many idle workers a pool keeps per key.
const MaxIdle = 2

// DefaultIdleTTL is how long an idle worker is kept for the next call
// before it is stopped: warm for a conversation, not forever.
const DefaultIdleTTL = 10 * time.Minute

// Pool keeps workers warm between calls, by key (a tool and the directory
// it runs in). A worker serves one call at a time; concurrent calls of one
// tool get workers of their own.
type Pool struct {
	// IdleTTL overrides DefaultIdleTTL; set it before the first call.
	IdleTTL time.Duration

	mu     sync.Mutex
	idle   map[string][]*Worker
	timers map[*Worker]*time.Timer
	busy   map[*Worker]bool
	closed bool
}

// NewPool makes an empty pool.
func NewPool() *Pool {
	return &Pool{idle: map[string][]*Worker{}, busy: map[*Worker]bool{}, timers: map[*Worker]*time.Timer{}}
}

// Call runs one call on a warm worker of key, starting one with c when
// none is idle. Started reports whether the entrypoint was reached at all:
// false when the worker could not start (the module failed to import, say).
func (p *Pool) Call(ctx context.Context, key string, c Command, id string, args json.RawMessage, cc CallContext, host Host) (out Outcome, started bool, err error) {
	w := p.take(key)
	if w == nil {
		if w, err = Start(ctx, c); err != nil {
			return Outcome{}, false, err
		}
	}
	if !p.markBusy(w) {
		w.Kill()
		return Outcome{}, false, errPoolClosed
	}
	out, err = w.Call(ctx, id, args, cc, host)
	p.release(key, w, err == nil)
	return out, true, err
}

type poolError string

func (e poolError) Error() string { return string(e) }

const errPoolClosed = poolError("the authored-tool runtime is shutting down")

func (p *Pool) take(key string) *Worker {
	p.mu.Lock()
	defer p.mu.Unlock()
	ws := p.idle[key]
	for len(ws) > 0 {
		w := ws[len(ws)-1]
		ws = ws[:len(ws)-1]
		p.stopTimer(w)
		if w.Alive() {
			p.idle[key] = ws
			return w
		}
	}
	delete(p.idle, key)
	return nil
}

func (p *Pool) markBusy(w *Worker) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.busy[w] = true
	return true
}

// release keeps a worker that ended its call cleanly, unless the pool has
// enough idle ones or is closed.
func (p *Pool) release(key string, w *Worker, reusable bool) {
	p.mu.Lock()
	delete(p.busy, w)
	keep := reusable && !p.closed && w.Alive() && len(p.idle[key]) < MaxIdle
	if keep {
		p.idle[key] = append(p.idle[key], w)
		ttl := p.IdleTTL
		if ttl <= 0 {
			ttl = DefaultIdleTTL
		}
		p.timers[w] = time.AfterFunc(ttl, func() { p.expire(key, w) })
	}
	p.mu.Unlock()
	if !keep {
		w.Kill()
	}
}

// expire stops a worker that stayed idle for IdleTTL, unless a call took
// it in the meantime.
func (p *Pool) expire(key string, w *Worker) {
	p.mu.Lock()
	ws := p.idle[key]
	i := slices.Index(ws, w)
	if i >= 0 {
		p.idle[key] = slices.Delete(ws, i, i+1)
		delete(p.timers, w)
	}
	p.mu.Unlock()
	if i >= 0 {
		w.Close()
	}
}

func (p *Pool) stopTimer(w *Worker) {
	if t, ok := p.timers[w]; ok {
		t.Stop()
		delete(p.timers, w)
	}
}

// Idle counts the idle workers of key.
func (p *Pool) Idle(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle[key])
}

// Close kills every worker, idle or busy; calls after it fail.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	var all []*Worker
	for _, ws := range p.idle {
		all = append(all, ws...)
	}
	for w := range p.timers {
		p.stopTimer(w)
	}
	for w := range p.busy {
		all = append(all, w)
	}
	p.idle, p.busy = map[string][]*Worker{}, map[*Worker]bool{}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, w := range all {
		wg.Go(w.Kill)
	}
	wg.Wait()
}
