package main

import (
	"demiurge.dev/host/agents"
	"demiurge.dev/host/toolhost"
)

// installSpawnGate makes the host's one spawn gate answer delegate_task
// for the sessions of h, its children running in this process with
// newLoop's model and store.
func installSpawnGate(h *toolhost.Host, newLoop agents.LoopFactory) {
	g := &agents.Gate{Host: h, NewLoop: newLoop}
	g.Install()
}
