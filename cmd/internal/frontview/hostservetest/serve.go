// Package hostservetest serves a host service to a front end's tests:
// a real gRPC server on a unix socket, as the long-lived host serves its
// front ends, with whatever host the test writes behind it.
package hostservetest

import (
	"context"
	"net"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"demiurge.dev/shared/hostv1"
)

// Session serves host on a unix socket for the rest of the test and
// opens one session stream to it.
func Session(t testing.TB, host hostv1.HostServer) hostv1.Host_SessionClient {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "host.sock"))
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	hostv1.RegisterHostServer(srv, host)
	go srv.Serve(ln)
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("unix://"+ln.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	stream, err := hostv1.NewHostClient(conn).Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return stream
}
