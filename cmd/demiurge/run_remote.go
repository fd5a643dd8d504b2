package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/turn"
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
	if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Run{Run: run}}); err != nil {
		return hostGone(cl, "the run", err)
	}
	ctx, stop := interruptContext(c.Context)
	defer stop()
	go func() {
		<-ctx.Done()
		if sig := caughtSignal.Load(); sig != 0 {
			_ = stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Interrupt{Interrupt: &hostv1.Interrupt{Signal: sig - 128}}})
		}
		// A second Ctrl-C is not caught: it ends the process at once.
		stop()
	}()
	for {
		m, err := stream.Recv()
		if err != nil {
			st, _ := status.FromError(err)
			switch st.Code() {
			case codes.NotFound, codes.FailedPrecondition, codes.InvalidArgument:
				return errors.New(st.Message())
			}
			return hostGone(cl, "the run", err)
		}
		switch x := m.Msg.(type) {
		case *hostv1.HostMessage_Event:
			var ev turn.Event
			if err := json.Unmarshal(x.Event, &ev); err != nil {
				return fmt.Errorf("the host sent an event this demiurge cannot read: %w", err)
			}
			switch {
			case ev.Type == turn.EventResult:
				fe.ShowResult(ev)
			case ev.Agent != "":
				fe.ShowChild(ev)
			default:
				fe.Show(ev)
			}
		case *hostv1.HostMessage_Warning:
			fe.Warn(x.Warning)
		case *hostv1.HostMessage_Env:
			// The model key the host's run needs, from this environment.
			ans := &hostv1.EnvAnswer{Id: x.Env.Id, Value: os.Getenv(x.Env.Name)}
			if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Env{Env: ans}}); err != nil {
				return hostGone(cl, "the run", err)
			}
		case *hostv1.HostMessage_Approval:
			// A run's front end answers nothing: deny.
			ans := &hostv1.ApprovalAnswer{Id: x.Approval.Id}
			if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Answer{Answer: ans}}); err != nil {
				return hostGone(cl, "the run", err)
			}
		case *hostv1.HostMessage_Ended:
			stream.CloseSend()
			code, msg := int(x.Ended.ExitCode), x.Ended.Error
			switch code {
			case 0:
				return nil
			case exitUsage:
				return usageError{errors.New(msg)}
			}
			return cli.Exit(msg, code)
		}
	}
}
