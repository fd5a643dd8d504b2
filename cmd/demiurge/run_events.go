package main

import (
	"fmt"
	"time"

	"demiurge.dev/cmd/internal/frontview"
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
	if !h.json {
		return
	}
	h.showResult(resultEvent(session, res, took, err))
}

// showResult prints a result event (`run --json` only).
func (h *headless) showResult(ev turn.Event) {
	if !h.json {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	_ = h.enc.Encode(ev)
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

// retryLine is plain `run`'s line for a retry event.
func retryLine(ev turn.Event) string {
	return fmt.Sprintf("demiurge: retrying the model step (try %d of %d in %s): %s",
		ev.Try, ev.Of, (time.Duration(ev.WaitMS) * time.Millisecond).Round(100*time.Millisecond), printable(ev.Text, 300))
}

// resultMark is a tool result's mark on a card: ✓ only for a call that
// succeeded and, when it ran a command, whose command exited 0.
func resultMark(ev turn.Event) string {
	switch {
	case ev.ExitCode != nil && *ev.ExitCode != 0:
		return fmt.Sprintf("✗ exit %d:", *ev.ExitCode)
	case ev.IsError:
		return "✗"
	}
	return "✓"
}

// commandFailed: a stored model view of a command's result whose
// command exited non-zero (frontview.CommandFailed).
func commandFailed(content string) bool { return frontview.CommandFailed(content) }
