package main

import (
	"context"
	"errors"
	"strings"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/hostd"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
	"demiurge.dev/shared/hostv1"
)

// hostChat is the interactive session's side in the long-lived host: the
// turn loop of the front end's session, opened with its chat, kept
// across its turns (a background task's completion is a turn of its own,
// shown to that front end) and closed when its stream ends.
type hostChat struct {
	loop  *turn.Loop
	model string
	fe    remoteRun
}

// hostChatRun serves one chat request: the opening (an empty prompt: the
// model is opened, its name answered; no model is an empty name) or one
// turn, after which nothing is waited for.
func hostChatRun(ctx context.Context, r hostd.Run) *hostv1.RunEnded {
	ch, _ := r.Stash.Load().(*hostChat)
	if ch == nil {
		var err error
		if ch, err = openHostChat(ctx, r); err != nil {
			exit, msg := exitStatusOf(err)
			return &hostv1.RunEnded{ExitCode: int32(exit), Error: msg}
		}
	}
	if r.Request.Prompt == "" {
		return &hostv1.RunEnded{Model: ch.model}
	}
	if ch.loop == nil {
		return &hostv1.RunEnded{ExitCode: exitUsage, Error: errNoModel.Error()}
	}
	res, err := ch.loop.Run(ctx, r.Request.Prompt, ch.fe)
	switch {
	case res.Status == turn.StatusCancelled || errors.Is(err, context.Canceled):
		return &hostv1.RunEnded{ExitCode: exitInterrupted}
	case err != nil:
		return &hostv1.RunEnded{ExitCode: exitFailed, Error: err.Error()}
	}
	return &hostv1.RunEnded{}
}

// openHostChat opens the chat's model as the in-process session does
// (the front end's flags, agent.yaml's model or a resumed session's, the
// key from the front end's environment) and stashes its loop.
func openHostChat(ctx context.Context, r hostd.Run) (*hostChat, error) {
	q := r.Request
	flags := modelFlagValues{Model: q.Model, BaseURL: q.BaseUrl, MaxSteps: int(q.MaxSteps),
		ContextWindow: int(q.ContextWindow), MaxOutputTokens: int(q.MaxOutputTokens)}
	fromCore := r.Host.Core.Model
	if r.Resumed {
		fromCore = sessionModel(r.Host, r.Session.ID(), fromCore)
	}
	ch := &hostChat{fe: remoteRun{r.FrontEnd}}
	if _, ok, err := modelConfigOf(flags, fromCore); err != nil {
		return nil, err
	} else if !ok {
		r.Stash.Store(ch, nil) // a tool session: /call and the slash commands
		return ch, nil
	}
	// The key is read once, when the chat opens, from the front end's
	// environment (never the host's).
	model, cfg, err := openModelOf(flags, fromCore, func(name string) string { return r.FrontEnd.Getenv(ctx, name) })
	if err != nil {
		return nil, err
	}
	store, err := r.Host.Store()
	if err != nil {
		return nil, err
	}
	ch.model = model.Name()
	ch.loop = &turn.Loop{Provider: model, Session: liveHostSource{Session: r.Session, src: r.Source, fe: r.FrontEnd}, Store: store,
		MaxSteps: flags.MaxSteps, System: systemPrompt, Instructions: agentInstructionsFor(r.Host, r.Session),
		MaxOutputTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature, Completions: ch.fe}
	release := installSpawnGate(r.Host, r.Session, func(child *toolhost.Session) (*turn.Loop, error) {
		return &turn.Loop{Provider: model, Session: child, Store: store, System: systemPrompt,
			MaxOutputTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature}, nil
	})
	rememberModel(ctx, r.Host, r.Session.ID(), cfg) // for a later `sessions resume`
	stopTasks := r.Host.OnTaskComplete(ch.loop.TaskEnded)
	loop := ch.loop
	r.Stash.Store(ch, func() {
		stopTasks()
		release()
		loop.Close()
	})
	return ch, nil
}

// liveHostSource is the front end's session as the chat loop's Source:
// its turns are the front end's (under its --approve rules), and each
// call's running output and progress go down its stream as they come
// (redacted by dispatch.Turn.OnOutput).
type liveHostSource struct {
	*toolhost.Session
	src turn.Source
	fe  *hostd.RunFrontEnd
}

func (s liveHostSource) NewTurn(ctx context.Context) (*dispatch.Turn, error) {
	t, err := s.src.NewTurn(ctx)
	if err != nil {
		return nil, err
	}
	t.OnOutput = func(_, _ string, text string) { s.fe.Output(text) }
	t.OnEvent = func(_ string, ev dispatch.Event) {
		if ev.Progress != "" {
			s.fe.Progress(strings.Join(strings.Fields(ev.Progress), " "))
		}
	}
	return t, nil
}
