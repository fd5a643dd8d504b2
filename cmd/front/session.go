package main

import (
	"context"
	"errors"
	"os"
	"time"

	"golang.org/x/term"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/cmd/internal/termsession"
	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/shared/hostv1"
)

// errHandOver ends the front end's session before it showed anything:
// the full CLI runs the session instead.
var errHandOver = errors.New("hand the session over to the full CLI")

// session is the interactive session through the running host: the
// full CLI's (termsession.RunRemote, the same code), with this front
// end's connection. Until the session has opened it hands over
// (handed=true, nothing printed) whenever the full CLI might do
// something else: a flag value it would refuse, no host of these
// options, a host too old to send approval cards rendered (protocol
// 1.11), a refused open (a bad model, no key: the full CLI says so).
func session(req frontargs.Request, state string) (code int, handed bool) {
	display, ok := turnFlags(req)
	if !ok {
		return 0, true
	}
	if req.ToolDisplay == "" {
		req.ToolDisplay = "summary"
	}
	dialCtx, cancelDial := context.WithTimeout(context.Background(), time.Minute)
	defer cancelDial()
	first, ok := dialShaped(dialCtx, req, state)
	if !ok {
		return 0, true
	}
	if first.Needs(11, "") != nil {
		first.Close()
		return 0, true
	}
	dial := func() (*hostclient.Client, error) {
		if cl := first; cl != nil {
			first = nil
			return cl, nil
		}
		cl, ok := dialShaped(context.Background(), req, state)
		if !ok {
			return nil, errors.New("the host could not be reached")
		}
		return cl, nil
	}
	err := termsession.RunRemote(termsession.RemoteConfig{
		Ctx: context.Background(), State: state, Stdin: os.Stdin, TTY: term.IsTerminal(int(os.Stdin.Fd())),
		Stdout: os.Stdout, Stderr: os.Stderr, Display: display,
		ToolDisplay: req.ToolDisplay, Quiet: req.Quiet,
		Dial: dial,
		Open: termsession.OpenOptions{Approve: req.Approve, Env: os.Getenv,
			Chat: &hostv1.RunTurn{Model: req.Model, BaseUrl: req.BaseURL, MaxSteps: int32(req.MaxSteps),
				ContextWindow: int32(req.ContextWindow), MaxOutputTokens: int32(req.MaxOutputTokens)}},
		OpenError:      openError,
		FirstOpenError: func(error) error { return errHandOver },
	})
	switch {
	case errors.Is(err, errHandOver):
		return 0, true
	case err != nil:
		os.Stderr.WriteString("demiurge: " + err.Error() + "\n")
		return 1, false
	}
	return 0, false
}

// openError is a refused /session switch as the full CLI says it.
func openError(err error) error {
	var refused *termsession.OpenRefused
	if !errors.As(err, &refused) {
		return err
	}
	if refused.Code == 2 {
		return errors.New(refused.Msg)
	}
	return errors.New("demiurge: " + refused.Msg)
}
