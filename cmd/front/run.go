package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/cmd/internal/interrupt"
	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/host/providers/modelname"
	"demiurge.dev/shared/hostv1"
)

// exitUsage is the full CLI's status for a mistake in how a command was
// called.
const exitUsage = 2

// run is `demiurge run PROMPT` through the running host, as the full
// CLI's runViaHost makes it: the host runs the turn in a session of this
// front end's and streams its events here, printed by frontview.Headless
// (the full CLI's printer); no one answers approvals (denied unless an
// --approve rule decided); the model key the host asks for is read from
// this environment. Until the turn has been asked for it hands over
// (handed=true, nothing printed) whenever the full CLI might do something
// else: a flag value it would refuse, no host of these options, a host
// too old for runs, `--session last` with no conversation. After, it
// never hands over (the turn would run twice).
func run(req frontargs.Request, state string) (code int, handed bool) {
	display, ok := turnFlags(req)
	if !ok {
		return 0, true
	}
	dialCtx, cancelDial := context.WithTimeout(context.Background(), time.Minute)
	defer cancelDial()
	cl, ok := dialNeeding(dialCtx, req, state, 3, "run")
	if !ok {
		return 0, true
	}
	defer cl.Close()
	id := req.Session
	if id == "last" {
		// The host's last conversation, as the full CLI takes it.
		var list []hostclient.Conversation
		if cl.Needs(2, "sessions") != nil {
			return 0, true
		}
		res, err := cl.Conversations(dialCtx, &hostv1.ConversationsRequest{})
		if err != nil || json.Unmarshal(res.Json, &list) != nil || len(list) == 0 {
			return 0, true
		}
		id = list[len(list)-1].ID
	}
	stream, err := cl.Session(context.Background())
	if err != nil {
		return 0, true
	}
	open := &hostv1.OpenSession{Approve: req.Approve, Resume: id}
	turn := &hostv1.RunTurn{Prompt: req.Prompt, Model: req.Model, BaseUrl: req.BaseURL, MaxSteps: int32(req.MaxSteps),
		ContextWindow: int32(req.ContextWindow), MaxOutputTokens: int32(req.MaxOutputTokens)}
	if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: open}}); err != nil {
		return 0, true
	}
	// From here the turn may be running: what happens is reported.
	fe := frontview.NewHeadless(os.Stdout, os.Stderr, req.JSON, display)
	err = receiveRun(cl, stream, turn, fe)
	return runExit(err), false
}

// turnFlags is the display mode of req's --tool-display (summary when
// none), for run and session alike; ok is false when the full CLI would
// refuse that mode or the --model name (it says so: hand over).
func turnFlags(req frontargs.Request) (display catalog.DisplayMode, ok bool) {
	display, err := catalog.ParseDisplayMode(req.ToolDisplay)
	if req.ToolDisplay == "" {
		display, err = catalog.DisplaySummary, nil
	}
	if err != nil {
		return display, false
	}
	if req.Model != "" {
		if _, _, err := modelname.Parse(req.Model); err != nil {
			return display, false
		}
	}
	return display, true
}

// runEnd is how a run through the host ended, as the full CLI's error
// from runViaHost: its message ("" when printed already or none) and
// exit status; usage marks the full CLI's usage error.
type runEnd struct {
	msg   string
	code  int
	usage bool
}

func (e *runEnd) Error() string { return e.msg }

// receiveRun asks for the turn and prints its events until it ends
// (frontview.RunTurn, as the full CLI's runViaHost).
func receiveRun(cl *hostclient.Client, stream hostv1.Host_SessionClient, turn *hostv1.RunTurn, fe *frontview.Headless) error {
	gone := func(err error) error {
		fmt.Fprintf(os.Stderr, "demiurge: the host (pid %d) went away during the run: %s\n", cl.PID, hostclient.GoneCause(err))
		return &runEnd{code: 1}
	}
	code, msg, err := frontview.RunTurn(context.Background(), stream, turn, fe, gone)
	if err != nil || code == 0 {
		return err
	}
	return &runEnd{msg: msg, code: code, usage: code == exitUsage}
}

// runExit prints err as the full CLI's main does and returns the exit
// status: after a signal, its status (and the error unless it is only
// the cancellation); a usage error with the pointer to help; any other
// error with "demiurge: ".
func runExit(err error) int {
	if caught := interrupt.Caught.Load(); caught != 0 {
		if err != nil && !errors.Is(err, context.Canceled) && err.Error() != "" {
			fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
		}
		return int(caught)
	}
	if err == nil {
		return 0
	}
	var end *runEnd
	if !errors.As(err, &end) {
		fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
		return 1
	}
	if end.usage {
		fmt.Fprintf(os.Stderr, "demiurge: %s\n", end.msg)
		fmt.Fprintln(os.Stderr, "run 'demiurge help' for usage")
		return exitUsage
	}
	if end.msg != "" {
		fmt.Fprintf(os.Stderr, "demiurge: %s\n", end.msg)
	}
	return end.code
}
