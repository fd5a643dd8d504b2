package main

import (
	"errors"
	"sync"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// spawnGates holds one spawn gate per host and, per root session, the loop
// factory of the front end whose turn runs it. A long-lived host runs
// several front ends' turns at once: a child must run with the model (and
// key) of the front end its root session belongs to, never another's, and
// the gate's counts (fan-out per root session) must span all of them.
var spawnGates sync.Map // *toolhost.Host -> *rootLoops

type rootLoops struct {
	gate   *agents.Gate
	mu     sync.Mutex
	byRoot map[string]agents.LoopFactory
}

var spawnGatesMu sync.Mutex

// spawnGateOf is h's one spawn gate, made and installed on first use.
func spawnGateOf(h *toolhost.Host) (*agents.Gate, *rootLoops) {
	spawnGatesMu.Lock()
	defer spawnGatesMu.Unlock()
	if v, ok := spawnGates.Load(h); ok {
		l := v.(*rootLoops)
		return l.gate, l
	}
	loops := &rootLoops{byRoot: map[string]agents.LoopFactory{}}
	loops.gate = &agents.Gate{Host: h, NewLoop: loops.newLoop}
	loops.gate.Install()
	spawnGates.Store(h, loops)
	return loops.gate, loops
}

// installSpawnGate makes the host's one spawn gate answer delegate_task
// for root's children with newLoop's model and store; release forgets
// newLoop when root's turn ends (children already started keep theirs).
func installSpawnGate(h *toolhost.Host, root *toolhost.Session, newLoop agents.LoopFactory) (release func()) {
	_, loops := spawnGateOf(h)
	id := root.ID()
	loops.mu.Lock()
	loops.byRoot[id] = newLoop
	loops.mu.Unlock()
	return func() {
		loops.mu.Lock()
		delete(loops.byRoot, id)
		loops.mu.Unlock()
	}
}

func (l *rootLoops) newLoop(child *toolhost.Session) (*turn.Loop, error) {
	l.mu.Lock()
	f := l.byRoot[child.Root().ID()]
	l.mu.Unlock()
	if f == nil {
		return nil, errors.New("the turn that asked for this child has ended")
	}
	return f(child)
}
