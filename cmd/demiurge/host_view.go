package main

import (
	"context"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/turn"
)

// hostView is what a session stream's events are shown on and who
// answers its clarify questions: the terminal chat (chatFrontEnd) or an
// editor over ACP (acpView).
type hostView interface {
	Show(ev turn.Event)
	ShowChild(ev turn.Event)
	// output and progress are a running call's output and progress.
	output(callID, stream, text string)
	progress(callID string, ev dispatch.Event)
	// warn is a notice of the host's, shown apart from the answer.
	warn(text string)
	Clarify(ctx context.Context, question string, choices []string) (string, bool, error)
	// opened names the session the stream opened.
	opened(session string)
}

func (f *chatFrontEnd) warn(text string) { f.Warn(text) }

func (f *chatFrontEnd) opened(session string) { f.Opened(session) }
