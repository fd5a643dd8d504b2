package frontview

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"

	"demiurge.dev/cmd/internal/frontview/hostservetest"
	"demiurge.dev/cmd/internal/interrupt"
	"demiurge.dev/shared/hostv1"
)

// askingHost asks a turn's front end for asks answers at once (model
// keys and approvals, alternately), reads until every answer and an
// interrupt came, and ends the turn; got has what it read.
type askingHost struct {
	hostv1.UnimplementedHostServer
	asks int
	got  chan []*hostv1.FrontEndMessage
}

func (h *askingHost) Session(stream grpc.BidiStreamingServer[hostv1.FrontEndMessage, hostv1.HostMessage]) error {
	var got []*hostv1.FrontEndMessage
	defer func() { h.got <- got }()
	run, err := stream.Recv()
	if err != nil {
		return err
	}
	got = append(got, run)
	for i := range h.asks {
		m := &hostv1.HostMessage{Msg: &hostv1.HostMessage_Env{Env: &hostv1.EnvRequest{Id: uint64(i), Name: "DEMIURGE_TEST_SEND_KEY"}}}
		if i%2 == 1 {
			m = &hostv1.HostMessage{Msg: &hostv1.HostMessage_Approval{Approval: &hostv1.ApprovalRequest{Id: uint64(i), Request: []byte(`{}`)}}}
		}
		if err := stream.Send(m); err != nil {
			return err
		}
	}
	answers, interrupted := 0, false
	for answers < h.asks || !interrupted {
		m, err := stream.Recv()
		if err != nil {
			return err
		}
		got = append(got, m)
		switch m.Msg.(type) {
		case *hostv1.FrontEndMessage_Env, *hostv1.FrontEndMessage_Answer:
			answers++
		case *hostv1.FrontEndMessage_Interrupt:
			interrupted = true
		}
	}
	return stream.Send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Ended{Ended: &hostv1.RunEnded{ExitCode: 130, Error: "interrupted"}}})
}

// oneSendAtATime is a real session stream that counts Sends entered
// while another is in progress: gRPC allows one goroutine in SendMsg at
// a time and does not always fail when two are. At the first answer it
// presses Ctrl-C (ctrlC) and holds that answer's Send up to 200 ms for
// the interrupt's Send to come in beside it.
type oneSendAtATime struct {
	hostv1.Host_SessionClient
	ctrlC       func()
	inSend      atomic.Int32
	overlaps    atomic.Int32
	firstAnswer sync.Once
	interruptIn chan struct{}
}

func (s *oneSendAtATime) Send(m *hostv1.FrontEndMessage) error {
	if s.inSend.Add(1) > 1 {
		s.overlaps.Add(1)
	}
	defer s.inSend.Add(-1)
	switch m.Msg.(type) {
	case *hostv1.FrontEndMessage_Interrupt:
		close(s.interruptIn)
	case *hostv1.FrontEndMessage_Env, *hostv1.FrontEndMessage_Answer:
		s.firstAnswer.Do(func() {
			s.ctrlC()
			select {
			case <-s.interruptIn:
			case <-time.After(200 * time.Millisecond):
			}
		})
	}
	return s.Host_SessionClient.Send(m)
}

// TestRunTurnSendsOneAtATime: a Ctrl-C while RunTurn's loop answers the
// host (its model key, an approval) sends the interrupt on the same gRPC
// stream, never beside an answer's Send; the host reads every answer
// and the interrupt whole, and the turn ends with the host's end.
func TestRunTurnSendsOneAtATime(t *testing.T) {
	t.Setenv("DEMIURGE_TEST_SEND_KEY", "sk-test")
	interrupt.Caught.Store(interrupt.Interrupted) // the Ctrl-C that ctrlC stands for
	t.Cleanup(func() { interrupt.Caught.Store(0) })
	host := &askingHost{asks: 64, got: make(chan []*hostv1.FrontEndMessage, 1)}
	stream := hostservetest.Session(t, host)
	turn, ctrlC := context.WithCancel(context.Background())
	defer ctrlC()
	watched := &oneSendAtATime{Host_SessionClient: stream, ctrlC: ctrlC, interruptIn: make(chan struct{})}
	code, msg, err := RunTurn(turn, watched, &hostv1.RunTurn{}, nil, func(err error) error { return err })
	if err != nil || code != 130 || msg != "interrupted" {
		t.Fatalf("RunTurn: %d %q %v, want the host's end (130 \"interrupted\")", code, msg, err)
	}
	if n := watched.overlaps.Load(); n != 0 {
		t.Fatalf("%d Sends entered while another was in progress on the stream", n)
	}
	got := <-host.got
	interrupts := 0
	for _, m := range got[1:] {
		switch x := m.Msg.(type) {
		case *hostv1.FrontEndMessage_Env:
			if x.Env.Value != "sk-test" {
				t.Fatalf("model key answer %d: %q", x.Env.Id, x.Env.Value)
			}
		case *hostv1.FrontEndMessage_Interrupt:
			interrupts++
			if x.Interrupt.Signal != 2 {
				t.Fatalf("interrupt with signal %d, want 2", x.Interrupt.Signal)
			}
		}
	}
	if interrupts != 1 || len(got) != 1+host.asks+1 {
		t.Fatalf("the host read %d messages with %d interrupts, want the turn, %d answers and 1 interrupt", len(got), interrupts, host.asks)
	}
}
