package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/shared/hostv1"
)

// runViaHost is `demiurge run` as a front end: the state's host (started
// if none runs) runs the turn in a session of this front end's, and its
// events come down this front end's stream only. No one here answers
// approvals (they deny unless an --approve rule decides). Ctrl-C or
// SIGTERM asks the host to cancel the turn, whose result still comes; a
// second Ctrl-C ends this process at once, and the host, seeing the
// stream end, cancels the turn.
func runViaHost(c *cli.Context, id, prompt string, fe *headless) error {
	cl, err := connectHost(c)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.Needs(3, "run"); err != nil {
		return err
	}
	if id == "last" {
		entries, err := conversationsOf(c)
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			return fmt.Errorf("no conversations yet; 'demiurge run PROMPT' starts one")
		}
		id = entries[len(entries)-1].ID
	}
	stream, err := cl.Session(c.Context)
	if err != nil {
		return hostGone(cl, "the run", err)
	}
	open := &hostv1.OpenSession{Principal: c.String("principal"), Approve: c.StringSlice("approve"), Resume: id}
	f := modelFlagsOf(c)
	run := &hostv1.RunTurn{Prompt: prompt, Model: f.Model, BaseUrl: f.BaseURL, MaxSteps: int32(f.MaxSteps),
		ContextWindow: int32(f.ContextWindow), MaxOutputTokens: int32(f.MaxOutputTokens)}
	if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: open}}); err != nil {
		return hostGone(cl, "the run", err)
	}
	gone := func(err error) error { return hostGone(cl, "the run", err) }
	code, msg, err := frontview.RunTurn(c.Context, stream, run, fe.Headless, gone)
	switch {
	case err != nil:
		return err
	case code == 0:
		return nil
	case code == exitUsage:
		return usageError{errors.New(msg)}
	}
	return cli.Exit(msg, code)
}
