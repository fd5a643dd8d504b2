package main

import (
	"context"
	"io"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
)

// liveOutput shows a foreground call while it runs (frontview.Live,
// which the small front end draws with too): its output (already
// redacted by dispatch.Turn.OnOutput) as it comes and, when spin is set
// (stderr is a terminal and not --quiet), a spinner with the latest
// progress message on one stderr line.
type liveOutput struct{ *frontview.Live }

func newLiveOutput(out, status io.Writer, spin bool) *liveOutput {
	return &liveOutput{frontview.NewLive(out, status, spin)}
}

// attach makes the turn's calls report to l.
func (l *liveOutput) attach(t *dispatch.Turn) {
	t.OnOutput = l.output
	t.OnEvent = l.event
}

func (l *liveOutput) output(_, stream string, text string) { l.Output(stream, text) }

// notShownAgain is a card's body with what already streamed left out.
func (l *liveOutput) notShownAgain(body string) string { return l.NotShownAgain(body) }

func (l *liveOutput) event(_ string, ev dispatch.Event) { l.Progress(ev.Progress, ev.Fraction) }

// hold wipes the spinner and keeps it off the screen until release.
func (l *liveOutput) hold()    { l.Hold() }
func (l *liveOutput) release() { l.Release() }

// close stops the spinner and wipes its line; safe to call twice.
func (l *liveOutput) close() { l.Close() }

// heldApprover asks through its provider with the live line held, so the
// spinner never draws over the approval question.
type heldApprover struct {
	approval.Provider
	live func() *liveOutput // set once the call's live output exists
}

func (h heldApprover) Ask(ctx context.Context, req approval.Request) (approval.Answer, error) {
	if l := h.live(); l != nil {
		l.hold()
		defer l.release()
	}
	return h.Provider.Ask(ctx, req)
}
