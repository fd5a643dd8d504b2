package agents

import "time"

// Limits are the gate's bounds. A zero field takes its default.
type Limits struct {
	// MaxDepth is how deep a chain of children may go below a top-level
	// session (depth 1 is a child of it). A request's max_depth only
	// lowers it; toolhost.MaxDelegationDepth is the absolute bound.
	MaxDepth int
	// MaxRunning is how many children may run at once under one root
	// session, its whole tree counted.
	MaxRunning int
	// MaxPerTurn is how many children one turn may start.
	MaxPerTurn int
	// MaxRoots is how many top-level runs that are children of no one
	// (scheduled runs, SpawnRoot) may run at once; more wait for a slot.
	MaxRoots int
	// MaxSteps, MaxOutputTokens and WallTime are each child's budget.
	MaxSteps        int
	MaxOutputTokens int64
	WallTime        time.Duration
}

// The defaults (docs/architecture.md "Child agents").
const (
	DefaultMaxDepth        = 3
	DefaultMaxRunning      = 24
	DefaultMaxPerTurn      = 24
	DefaultMaxRoots        = 4
	DefaultMaxSteps        = 30
	DefaultMaxOutputTokens = 64000
	DefaultWallTime        = 15 * time.Minute
)

func (l Limits) withDefaults() Limits {
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	if l.MaxRunning <= 0 {
		l.MaxRunning = DefaultMaxRunning
	}
	if l.MaxPerTurn <= 0 {
		l.MaxPerTurn = DefaultMaxPerTurn
	}
	if l.MaxRoots <= 0 {
		l.MaxRoots = DefaultMaxRoots
	}
	if l.MaxSteps <= 0 {
		l.MaxSteps = DefaultMaxSteps
	}
	if l.MaxOutputTokens <= 0 {
		l.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if l.WallTime <= 0 {
		l.WallTime = DefaultWallTime
	}
	return l
}
