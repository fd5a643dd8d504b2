package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/cmd/internal/frontview"
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
	wait := c.Bool("wait")
	if wait {
		if err := cl.Needs(3, "tools call --wait"); err != nil {
			return err
		}
	}
	ctx, stop := interruptContext(c.Context)
	defer stop()
	asker := operatorCanAnswer()
	open := &hostv1.OpenSession{Principal: c.String("principal"), Asker: asker, Approve: c.StringSlice("approve"), Session: c.String("session")}
	if open.Session != "" {
		if err := cl.Needs(4, "--session"); err != nil {
			return err
		}
	}
	call := &hostv1.ToolCall{Name: name, Args: []byte(args), Wait: wait}
	// On a terminal the call's output streams to stderr as it comes, with
	// a progress line, as in process; the question is asked with the
	// line held, so the spinner never draws over it.
	var live *liveOutput
	var onEvent func(hostd.CallEvent)
	if !c.Bool("quiet") && term.IsTerminal(int(os.Stderr.Fd())) {
		live = newLiveOutput(os.Stderr, os.Stderr, true)
		defer live.close()
		onEvent = func(ev hostd.CallEvent) {
			switch ev.Type {
			case hostd.CallOutput:
				live.output("", ev.Stream, ev.Text)
			case hostd.CallProgress:
				live.event("", dispatch.Event{Progress: ev.Progress, Fraction: ev.Fraction})
			}
		}
	}
	ask := func(ctx context.Context, req approval.Request) approval.Answer {
		if live != nil {
			live.hold()
			defer live.release()
		}
		t := &approval.Terminal{In: plugins.OperatorStdin(), Out: os.Stderr}
		a, err := t.Ask(ctx, req)
		if err != nil {
			return approval.Deny
		}
		return a
	}
	out, err := callViaHostPrinting(ctx, cl, open, call, ask, func(out remoteOutcome) error {
		if live != nil {
			live.close()
		}
		for _, w := range out.warnings {
			fmt.Fprintf(os.Stderr, "warning: %s\n", w)
		}
		return printOutcome(c, out.Outcome)
	}, onEvent)
	if caughtSignal.Load() != 0 && !out.done {
		fmt.Fprintf(os.Stderr, "demiurge: interrupted; the %s call was cancelled\n", name)
		return failed()
	}
	if errors.Is(err, toolhost.ErrUnknownSession) {
		return sessionRefused(open.Session, err)
	}
	if err != nil {
		return hostGone(cl, "the "+name+" call", err)
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
	// done: the outcome came (the call itself was not cut off).
	done bool
}

// callViaHost runs one call in a fresh front end session and answers its
// approval requests with ask. The outcome is printed as it comes (with
// --json or as a card). With call.Wait, the host then waits for the
// session's background tasks and says when they end; an interrupt (ctx)
// asks it to cancel them, and their ends are still reported.
func callViaHost(ctx context.Context, cl *hostd.Client, open *hostv1.OpenSession, call *hostv1.ToolCall,
	ask func(context.Context, approval.Request) approval.Answer) (remoteOutcome, error) {
	return callViaHostPrinting(ctx, cl, open, call, ask, nil, nil)
}

// callViaHostPrinting is callViaHost with print called on the outcome as
// it comes, and onEvent (when set) on what the call streams meanwhile
// (its output and progress, sent to a front end that can answer).
func callViaHostPrinting(ctx context.Context, cl *hostd.Client, open *hostv1.OpenSession, call *hostv1.ToolCall,
	ask func(context.Context, approval.Request) approval.Answer, print func(remoteOutcome) error, onEvent func(hostd.CallEvent)) (remoteOutcome, error) {
	var ro remoteOutcome
	streamCtx := ctx
	if call.Wait {
		// The wait outlives an interrupt: the host is told, and answers.
		streamCtx = context.WithoutCancel(ctx)
	}
	stream, err := cl.Session(streamCtx)
	if err != nil {
		return ro, err
	}
	send := frontview.SerialSend(stream)
	if err := send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: open}}); err != nil {
		return ro, err
	}
	if err := send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Call{Call: call}}); err != nil {
		return ro, err
	}
	if call.Wait {
		go func() {
			<-ctx.Done()
			_ = send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Interrupt{Interrupt: &hostv1.Interrupt{}}})
		}()
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
			if err := send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Answer{Answer: &hostv1.ApprovalAnswer{Id: x.Approval.Id, Answer: int32(a)}}}); err != nil {
				return ro, err
			}
		case *hostv1.HostMessage_Event:
			var ev hostd.CallEvent
			if onEvent != nil && !ro.done && json.Unmarshal(x.Event, &ev) == nil {
				onEvent(ev)
			}
		case *hostv1.HostMessage_Warning:
			if ro.done {
				fmt.Fprint(os.Stderr, x.Warning) // the wait's lines
			} else {
				ro.warnings = append(ro.warnings, x.Warning)
			}
		case *hostv1.HostMessage_Outcome:
			out, err := hostd.DecodeOutcome(x.Outcome.Outcome)
			if err != nil {
				return ro, fmt.Errorf("the host's outcome could not be read: %w", err)
			}
			ro.Outcome, ro.done = out, true
			if print != nil {
				if err := print(ro); err != nil {
					return ro, err
				}
			}
			if !call.Wait {
				stream.CloseSend()
				return ro, nil
			}
		case *hostv1.HostMessage_Ended:
			stream.CloseSend()
			return ro, nil
		}
	}
}
