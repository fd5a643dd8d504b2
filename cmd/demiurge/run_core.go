package main

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// headlessRun is one headless turn, wherever it runs: in process
// (DEMIURGE_HOST=off) or in the host for a front end (run_host.go).
type headlessRun struct {
	h *toolhost.Host
	s *toolhost.Session
	// src gives s's turns (under a front end's own --approve rules).
	src     turn.Source
	resumed bool
	flags   modelFlagValues
	// getenv reads the model key: the environment of whoever asked.
	getenv func(string) string
	fe     runFrontEnd
	// errw takes the run's notices (background tasks waited for).
	errw  io.Writer
	tasks backgroundTasks
}

// runFrontEnd shows the turn and closes it with its result event.
type runFrontEnd interface {
	turn.FrontEnd
	result(session string, res turn.Result, took time.Duration, err error)
}

// run runs the turn and waits for the background tasks it started; the
// error is the command's (cli.Exit codes included).
func (r headlessRun) run(ctx context.Context, prompt string) error {
	fromCore := r.h.Core.Model
	if r.resumed {
		fromCore = sessionModel(r.h, r.s.ID(), fromCore)
	}
	model, cfg, err := openModelOf(r.flags, fromCore, r.getenv)
	if err != nil {
		return err
	}
	rememberModel(ctx, r.h, r.s.ID(), cfg)
	store, err := r.h.Store()
	if err != nil {
		return err
	}
	loop := &turn.Loop{Provider: model, Session: r.src, Store: store, MaxSteps: r.flags.MaxSteps,
		System: systemPrompt, Instructions: agentInstructionsFor(r.h, r.s),
		MaxOutputTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature}
	defer loop.Close()
	release := installSpawnGate(r.h, r.s, func(child *toolhost.Session) (*turn.Loop, error) {
		return &turn.Loop{Provider: model, Session: child, Store: store, System: systemPrompt,
			MaxOutputTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature}, nil
	})
	defer release()
	watch := watchCompletions(r.h, loop)
	defer watch.stop()
	loop.Completions = r.fe
	loop.Announce = runAnnounce(r.h)
	began := time.Now()
	res, err := loop.Run(ctx, prompt, r.fe)
	r.fe.result(r.s.ID(), res, time.Since(began), err)
	if res.Status == turn.StatusDone {
		if ok, err := awaitBackground(ctx, r.errw, r.h, r.tasks, r.s, loop, watch); !ok {
			return cli.Exit("", exitInterrupted)
		} else if err != nil {
			return err
		}
	}
	switch {
	case res.Status == turn.StatusCancelled:
		return cli.Exit("", exitInterrupted)
	case err != nil:
		if errors.Is(err, context.Canceled) {
			return cli.Exit("", exitInterrupted)
		}
		return err
	case res.Status == turn.StatusStepCap:
		return cli.Exit("", exitFailed)
	}
	return nil
}
