package main

import (
	"time"

	"demiurge.dev/host/sandboxing"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// runAnnounce is what `run --json`'s init event says beyond the model and
// the tools: this build's version and the sandbox mode approved commands
// run in, as the kernel enforces it (demiurge sandbox status).
func runAnnounce(h *toolhost.Host) *turn.EventDetail {
	b := currentBuild()
	v := b.Version
	if b.Commit != "" {
		v += " (" + b.Commit + ")"
	}
	return &turn.EventDetail{Version: v, Sandbox: sandboxing.Report(h.Sandbox.Helper, h.Sandbox.Mode).Effective}
}

// result closes a `run --json` run with one result event: the turn's
// status, steps, duration and total usage. Plain `run` prints nothing more.
func (h *headless) result(session string, res turn.Result, took time.Duration, err error) {
	h.ShowResult(resultEvent(session, res, took, err))
}

// resultEvent is the result event closing a run.
func resultEvent(session string, res turn.Result, took time.Duration, err error) turn.Event {
	ev := turn.Event{Type: turn.EventResult, Session: session, Turn: res.Turn, Status: string(res.Status), Usage: &res.Usage,
		EventDetail: turn.EventDetail{Steps: res.Steps, DurationMS: took.Milliseconds()}}
	if err != nil {
		ev.Error = err.Error()
	}
	if ev.Status == "" {
		ev.Status = string(turn.StatusFailed)
	}
	return ev
}
