package main

import (
	"context"
	"errors"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/hostd"
	"demiurge.dev/host/turn"
	"demiurge.dev/shared/hostv1"
)

// hostRunner is the long-lived host's side of `demiurge run`: the turn a
// front end asked for, run as the in-process command runs it, its events
// and notices sent to that front end, the model key read from that front
// end's environment.
func hostRunner(ctx context.Context, r hostd.Run) *hostv1.RunEnded {
	q := r.Request
	if q.Chat {
		return hostChatRun(ctx, r)
	}
	flags := modelFlagValues{Model: q.Model, BaseURL: q.BaseUrl, MaxSteps: int(q.MaxSteps),
		ContextWindow: int(q.ContextWindow), MaxOutputTokens: int(q.MaxOutputTokens)}
	err := headlessRun{h: r.Host, s: r.Session, src: r.Source, resumed: r.Resumed, flags: flags,
		getenv: func(name string) string { return r.FrontEnd.Getenv(ctx, name) },
		fe:     remoteRun{r.FrontEnd}, errw: noticeWriter{r.FrontEnd}, tasks: sessionTasks{h: r.Host, s: r.Session}}.run(ctx, q.Prompt)
	exit, msg := exitStatusOf(err)
	return &hostv1.RunEnded{ExitCode: int32(exit), Error: msg}
}

// exitStatusOf is the exit status and message of a command's error, as
// the front end reports it (main's rules).
func exitStatusOf(err error) (int, string) {
	var ue usageError
	var ec cli.ExitCoder
	switch {
	case err == nil:
		return 0, ""
	case errors.As(err, &ue):
		return exitUsage, err.Error()
	case errors.As(err, &ec):
		return ec.ExitCode(), err.Error()
	}
	return exitFailed, err.Error()
}

// remoteRun is the asking front end as the host's run sees it: every
// event goes down its stream, the result event too (its front end prints
// it only under --json).
type remoteRun struct{ *hostd.RunFrontEnd }

func (r remoteRun) result(session string, res turn.Result, took time.Duration, err error) {
	r.Show(resultEvent(session, res, took, err))
}

// noticeWriter sends a run's notice lines to its front end's standard
// error.
type noticeWriter struct{ fe *hostd.RunFrontEnd }

func (w noticeWriter) Write(b []byte) (int, error) {
	w.fe.Notice(string(b))
	return len(b), nil
}
