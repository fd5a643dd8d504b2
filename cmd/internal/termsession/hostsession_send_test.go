package termsession

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/cmd/internal/frontview/hostservetest"
	"demiurge.dev/shared/hostv1"
)

// questioningHost asks the session's front end asks approvals and asks
// clarify questions at once, reads every answer, and ends the stream;
// got has the answers' ids by kind.
type questioningHost struct {
	hostv1.UnimplementedHostServer
	asks int
	got  chan map[string][]uint64
}

func (h *questioningHost) Session(stream grpc.BidiStreamingServer[hostv1.FrontEndMessage, hostv1.HostMessage]) error {
	got := map[string][]uint64{}
	defer func() { h.got <- got }()
	for i := range h.asks {
		id := uint64(i)
		if err := stream.Send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Approval{Approval: &hostv1.ApprovalRequest{Id: id, Request: []byte(`{}`)}}}); err != nil {
			return err
		}
		if err := stream.Send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Clarify{Clarify: &hostv1.ClarifyRequest{Id: id, Question: "which?"}}}); err != nil {
			return err
		}
	}
	for range 2 * h.asks {
		m, err := stream.Recv()
		if err != nil {
			return err
		}
		switch x := m.Msg.(type) {
		case *hostv1.FrontEndMessage_Answer:
			got["approval"] = append(got["approval"], x.Answer.Id)
		case *hostv1.FrontEndMessage_Clarify:
			got["clarify"] = append(got["clarify"], x.Clarify.Id)
		default:
			got["other"] = append(got["other"], 0)
		}
	}
	return nil
}

// sendsWatched is a real session stream that counts Sends entered while
// another is in progress (gRPC allows one goroutine in SendMsg at a time
// and does not always fail when two are); each Send takes a little
// while, as one waiting for flow control does.
type sendsWatched struct {
	hostv1.Host_SessionClient
	inSend, overlaps atomic.Int32
}

func (s *sendsWatched) Send(m *hostv1.FrontEndMessage) error {
	if s.inSend.Add(1) > 1 {
		s.overlaps.Add(1)
	}
	defer s.inSend.Add(-1)
	time.Sleep(200 * time.Microsecond)
	return s.Host_SessionClient.Send(m)
}

// TestHostSessionAnswersOneSendAtATime: the session answers each
// approval and clarify question on its own goroutine; their answers go
// out on the one gRPC stream one Send at a time (frontview.SerialSend), and the
// host reads every one whole.
func TestHostSessionAnswersOneSendAtATime(t *testing.T) {
	host := &questioningHost{asks: 32, got: make(chan map[string][]uint64, 1)}
	stream := hostservetest.Session(t, host)
	watched := &sendsWatched{Host_SessionClient: stream}
	hs := &HostSession{stream: stream, send: frontview.SerialSend(watched), View: unansweredView{},
		approver: func(context.Context, []byte) int32 { return 1 }, gone: make(chan struct{})}
	hs.asks, hs.endAsk = context.WithCancel(context.Background())
	go hs.receive()
	got := <-host.got
	<-hs.Gone()
	hs.wg.Wait()
	if n := watched.overlaps.Load(); n != 0 {
		t.Fatalf("%d Sends entered while another was in progress on the stream", n)
	}
	for _, kind := range []string{"approval", "clarify"} {
		seen := map[uint64]bool{}
		for _, id := range got[kind] {
			seen[id] = true
		}
		if len(got[kind]) != host.asks || len(seen) != host.asks {
			t.Fatalf("the host read %d %s answers (%d ids), want %d: %v", len(got[kind]), kind, len(seen), host.asks, got)
		}
	}
	if len(got["other"]) != 0 {
		t.Fatalf("the host read %d other messages", len(got["other"]))
	}
}
