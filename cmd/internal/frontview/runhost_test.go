package frontview

import (
	"context"
	"errors"
	"io"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/cmd/internal/frontview/hostservetest"
	"demiurge.dev/shared/hostv1"
)

// refusingHost is a host service whose every session is refused at
// once, before it reads anything: as the host refuses an unknown
// --session or a bad --approve rule.
type refusingHost struct {
	hostv1.UnimplementedHostServer
}

func (refusingHost) Session(grpc.BidiStreamingServer[hostv1.FrontEndMessage, hostv1.HostMessage]) error {
	return status.Error(codes.NotFound, `no session "s-404"`)
}

// TestRunTurnSaysTheHostsRefusalWhenItsSendLost: a host that refused the
// session before the turn was sent fails RunTurn's Send with io.EOF;
// the front end must say the host's reason, not that the host went away
// (TestRunIsTheFrontEnds failed 1 run in 5 on this race).
func TestRunTurnSaysTheHostsRefusalWhenItsSendLost(t *testing.T) {
	ctx := context.Background()
	stream := hostservetest.Session(t, refusingHost{})
	// Lose the race on purpose: send until the ended stream says io.EOF,
	// so RunTurn's own Send meets the end as it does in the rare run.
	for {
		if err := stream.Send(&hostv1.FrontEndMessage{}); err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("send: %v, want io.EOF", err)
			}
			break
		}
	}
	wentAway := errors.New("went away")
	_, _, err := RunTurn(ctx, stream, &hostv1.RunTurn{}, nil, func(error) error { return wentAway })
	if err == nil || err.Error() != `no session "s-404"` {
		t.Fatalf("RunTurn: %v, want the host's refusal", err)
	}
}
