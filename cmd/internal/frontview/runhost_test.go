package frontview

import (
	"context"
	"errors"
	"io"
	"net"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

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
	sock := filepath.Join(t.TempDir(), "host.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	hostv1.RegisterHostServer(srv, refusingHost{})
	go srv.Serve(ln)
	defer srv.Stop()
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx := context.Background()
	stream, err := hostv1.NewHostClient(conn).Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
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
	_, _, err = RunTurn(ctx, stream, &hostv1.RunTurn{}, nil, func(error) error { return wentAway })
	if err == nil || err.Error() != `no session "s-404"` {
		t.Fatalf("RunTurn: %v, want the host's refusal", err)
	}
}
