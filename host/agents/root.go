package agents

import (
	"context"
	"sort"
	"sync"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/toolhost"
)

// RootRequest asks the gate for a top-level run that is a child of no
// one (a scheduled run): no parent's tools to narrow, the tools and the
// judge (its lease) are the run's own.
type RootRequest struct {
	// Host is the host the run runs on: the gate's own, or another core's
	// host of it (toolhost.Host.CoreHost). nil is the gate's.
	Host      *toolhost.Host
	Principal string
	Tools     []string
	// Judge decides every call of the run and of its children alone.
	Judge func(approval.Request) (bool, string)
	// Label says what the run is in the gate's accounting.
	Label string
}

// Root is an admitted top-level run: its session and its slot.
type Root struct {
	Session *toolhost.Session
	release func()
}

// End ends the run's session (its children, tasks and connections) and
// gives its slot back.
func (r *Root) End() {
	r.Session.End()
	r.release()
}

// RootInfo is a top-level run the gate counts.
type RootInfo struct {
	Session, Label string
	Started        time.Time
	Children       int // its tree's children running now
}

// Accounting is what the gate counts now.
type Accounting struct {
	Roots   []RootInfo // top-level runs admitted, oldest first
	Waiting int        // top-level runs waiting for a slot
}

// SpawnRoot admits a top-level run through the one gate: at most
// Limits.MaxRoots run at once; one past that waits for a slot, in
// order, until ctx ends (then it is refused and nothing starts). Its
// session is a root (depth 0): its children go through Spawn as any
// parent's do, counted under it and inheriting its judge.
func (g *Gate) SpawnRoot(ctx context.Context, req RootRequest) (*Root, error) {
	lim := g.Limits.withDefaults()
	h := req.Host
	if h == nil {
		h = g.Host
	}
	slots := g.rootSlots(lim)
	g.mu.Lock()
	g.waiting++
	g.mu.Unlock()
	select {
	case slots <- struct{}{}:
	case <-ctx.Done():
		g.mu.Lock()
		g.waiting--
		g.mu.Unlock()
		return nil, refuse("top-level run limit: %d runs already run at once (the most); this one waited until %v", lim.MaxRoots, context.Cause(ctx))
	}
	s := h.OpenUnattended(req.Principal, req.Tools, req.Judge)
	id := s.ID()
	g.mu.Lock()
	g.waiting--
	g.depthCap[id] = lim.MaxDepth
	g.roots[id] = RootInfo{Session: id, Label: req.Label, Started: time.Now()}
	g.mu.Unlock()
	var once sync.Once
	return &Root{Session: s, release: func() {
		once.Do(func() {
			g.mu.Lock()
			delete(g.roots, id)
			delete(g.depthCap, id)
			g.mu.Unlock()
			<-slots
		})
	}}, nil
}

// rootSlots is the gate's semaphore of top-level runs, made on first use.
func (g *Gate) rootSlots(lim Limits) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.initLocked()
	if g.roots == nil {
		g.roots = map[string]RootInfo{}
		g.slots = make(chan struct{}, lim.MaxRoots)
	}
	return g.slots
}

// Accounting reports the top-level runs the gate admitted and how many
// wait, each with the children its tree runs.
func (g *Gate) Accounting() Accounting {
	g.mu.Lock()
	defer g.mu.Unlock()
	a := Accounting{Waiting: g.waiting}
	for id, r := range g.roots {
		r.Children = g.running[id]
		a.Roots = append(a.Roots, r)
	}
	sort.Slice(a.Roots, func(i, j int) bool { return a.Roots[i].Started.Before(a.Roots[j].Started) })
	return a
}
