package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/hostd"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// toolsCallViaHost is `tools call` as a front end: the running host (one
// is started if none runs) makes the call in a session of this front
// end's, asks this terminal what needs approval, and sends the outcome.
// A background call's task stays with the host; `demiurge tasks` reaches
// it after this command has returned.
func toolsCallViaHost(c *cli.Context, name, args string) error {
	cl, err := connectHost(c)
	if err != nil {
		return err
	}
	defer cl.Close()
	ctx, stop := interruptContext(c.Context)
	defer stop()
	asker := operatorCanAnswer()
	open := &hostv1.OpenSession{Principal: c.String("principal"), Asker: asker, Approve: c.StringSlice("approve"), Session: c.String("session")}
	if open.Session != "" {
		if err := cl.Needs(3, "--session"); err != nil {
			return err
		}
	}
	out, err := callViaHost(ctx, cl, open, name, []byte(args), func(ctx context.Context, req approval.Request) approval.Answer {
		t := &approval.Terminal{In: plugins.OperatorStdin(), Out: os.Stderr}
		a, err := t.Ask(ctx, req)
		if err != nil {
			return approval.Deny
		}
		return a
	})
	if caughtSignal.Load() != 0 {
		fmt.Fprintf(os.Stderr, "demiurge: interrupted; the %s call was cancelled\n", name)
		return failed()
	}
	if errors.Is(err, toolhost.ErrUnknownSession) {
		return sessionRefused(open.Session, err)
	}
	if err != nil {
		return hostGone(cl, "the "+name+" call", err)
	}
	for _, w := range out.warnings {
		fmt.Fprintf(os.Stderr, "warning: %s\n", w)
	}
	if err := printOutcome(c, out.Outcome); err != nil {
		return err
	}
	if !out.OK() {
		return failed()
	}
	return nil
}

// remoteOutcome is a call's outcome and the warnings that came with it.
type remoteOutcome struct {
	dispatch.Outcome
	warnings []string
}

// callViaHost runs one call in a fresh front end session and answers its
// approval requests with ask.
func callViaHost(ctx context.Context, cl *hostd.Client, open *hostv1.OpenSession, name string, args []byte,
	ask func(context.Context, approval.Request) approval.Answer) (remoteOutcome, error) {
	var ro remoteOutcome
	stream, err := cl.Session(ctx)
	if err != nil {
		return ro, err
	}
	if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: open}}); err != nil {
		return ro, err
	}
	if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Call{Call: &hostv1.ToolCall{Name: name, Args: args}}}); err != nil {
		return ro, err
	}
	for {
		m, err := stream.Recv()
		if err != nil {
			if status.Code(err) == codes.Canceled && ctx.Err() != nil {
				return ro, ctx.Err()
			}
			if status.Code(err) == codes.NotFound && open.Session != "" {
				return ro, toolhost.ErrUnknownSession
			}
			if st, ok := status.FromError(err); ok {
				return ro, fmt.Errorf("%s", st.Message())
			}
			return ro, err
		}
		switch x := m.Msg.(type) {
		case *hostv1.HostMessage_Approval:
			req, err := hostd.DecodeRequest(x.Approval.Request)
			a := approval.Deny
			if err == nil {
				a = ask(ctx, req)
			} else {
				fmt.Fprintf(os.Stderr, "demiurge: the host's approval question could not be read (%v): denied\n", err)
			}
			if err := stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Answer{Answer: &hostv1.ApprovalAnswer{Id: x.Approval.Id, Answer: int32(a)}}}); err != nil {
				return ro, err
			}
		case *hostv1.HostMessage_Warning:
			ro.warnings = append(ro.warnings, x.Warning)
		case *hostv1.HostMessage_Outcome:
			out, err := hostd.DecodeOutcome(x.Outcome.Outcome)
			if err != nil {
				return ro, fmt.Errorf("the host's outcome could not be read: %w", err)
			}
			ro.Outcome = out
			stream.CloseSend()
			return ro, nil
		}
	}
}
