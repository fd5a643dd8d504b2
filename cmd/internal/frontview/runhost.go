package frontview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/cmd/internal/interrupt"
	"demiurge.dev/shared/hostv1"
	"demiurge.dev/shared/turnevent"
)

// RunTurn is `demiurge run` through the host once the session is open,
// for the full CLI and the small front end alike: it asks for turn on
// stream and prints the turn's events with fe until the host ends it.
// The model key the host asks for is read from this environment; no one
// answers approvals (deny). The first Ctrl-C or SIGTERM asks the host to
// interrupt the turn (whose end still comes); a second is not caught and
// ends the process. It returns the host's exit code and error text when
// the turn ended; else err: the host's refusal (its status message),
// an unreadable event, or gone(the stream's error) when the host went
// away.
func RunTurn(parent context.Context, stream hostv1.Host_SessionClient, turn *hostv1.RunTurn, fe *Headless, gone func(error) error) (code int, msg string, err error) {
	send := lockedSend(stream)
	if err := send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Run{Run: turn}}); err != nil {
		return 0, "", gone(err)
	}
	ctx, stop := interrupt.Context(parent)
	defer stop()
	go func() {
		<-ctx.Done()
		if sig := interrupt.Caught.Load(); sig != 0 {
			_ = send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Interrupt{Interrupt: &hostv1.Interrupt{Signal: sig - 128}}})
		}
		// A second Ctrl-C is not caught: it ends the process at once.
		stop()
	}()
	for {
		m, err := stream.Recv()
		if err != nil {
			return 0, "", recvFailed(err, gone)
		}
		switch x := m.Msg.(type) {
		case *hostv1.HostMessage_Event:
			var ev turnevent.Event
			if err := json.Unmarshal(x.Event, &ev); err != nil {
				return 0, "", fmt.Errorf("the host sent an event this demiurge cannot read: %w", err)
			}
			switch {
			case ev.Type == turnevent.EventResult:
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
			if err := send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Env{Env: ans}}); err != nil {
				return 0, "", gone(err)
			}
		case *hostv1.HostMessage_Approval:
			// A run's front end answers nothing: deny.
			ans := &hostv1.ApprovalAnswer{Id: x.Approval.Id}
			if err := send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Answer{Answer: ans}}); err != nil {
				return 0, "", gone(err)
			}
		case *hostv1.HostMessage_Ended:
			stream.CloseSend()
			return int(x.Ended.ExitCode), x.Ended.Error, nil
		}
	}
}

// recvFailed is the error of a turn whose stream ended: the host's
// refusal (an unknown session, a bad rule, a missing model) in its own
// words, anything else the host going away.
func recvFailed(err error, gone func(error) error) error {
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.NotFound, codes.FailedPrecondition, codes.InvalidArgument:
		return errors.New(st.Message())
	}
	return gone(err)
}

// SerialSend is stream.Send for several goroutines at once: gRPC allows
// one Send at a time on a stream, and a front end sends its answers and
// an interrupt from their own goroutines.
func SerialSend(stream hostv1.Host_SessionClient) func(*hostv1.FrontEndMessage) error {
	var mu sync.Mutex
	return func(m *hostv1.FrontEndMessage) error {
		mu.Lock()
		defer mu.Unlock()
		return stream.Send(m)
	}
}

// lockedSend is SerialSend for RunTurn's loop and its interrupt. A Send
// that meets a stream the host already ended says only io.EOF; the
// host's reason and whatever it sent before are read by Recv, so that
// Send reports no error and the receive loop goes on to them (a session
// the host refused before it read the turn: its refusal, not "the host
// went away").
func lockedSend(stream hostv1.Host_SessionClient) func(*hostv1.FrontEndMessage) error {
	send := SerialSend(stream)
	return func(m *hostv1.FrontEndMessage) error {
		if err := send(m); err != nil && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
}
