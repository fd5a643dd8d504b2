package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// oldHost is a host of an older build as the front end meets it: it
// holds the state's lock, listens on its socket with its token, and
// answers the handshake (the real host service, shared/hostv1) with an
// older protocol minor. Every other method fails, as on a host that
// predates it; it records which methods were asked.
type oldHost struct {
	hostv1.UnimplementedHostServer
	mu    sync.Mutex
	minor int
	asked []string
}

func (h *oldHost) Hello(context.Context, *hostv1.HelloRequest) (*hostv1.HelloResponse, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return &hostv1.HelloResponse{ProtocolVersion: hostv1.ProtocolVersion, ProtocolMinor: uint32(h.minor), Pid: int64(os.Getpid())}, nil
}

// setMinor is the minor the next handshakes say; what was asked is
// forgotten.
func (h *oldHost) setMinor(minor int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.minor, h.asked = minor, nil
}

// Session takes the front end's first message (a call's or a session's
// open), then fails as a host that cannot serve it: the front end has
// asked, and what it does next does not race the failure.
func (h *oldHost) Session(s hostv1.Host_SessionServer) error {
	s.Recv()
	return status.Error(codes.Unimplemented, "an older host")
}

func (h *oldHost) record(method string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, filepath.Base(method))
}

// beyondHello is what the host was asked besides the handshake, since
// the last time.
func (h *oldHost) beyondHello() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, m := range h.asked {
		if m != "Hello" {
			out = append(out, m)
		}
	}
	h.asked = nil
	return out
}

// serveOldHost runs an oldHost of minor for state until the test ends.
func serveOldHost(t *testing.T, state string, minor int) *oldHost {
	t.Helper()
	if err := hostclient.EnsureRuntimeDir(state); err != nil {
		t.Fatal(err)
	}
	lock, err := hostclient.Flock(hostclient.LockPath(state), syscall.LOCK_EX, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.WriteString(strconv.Itoa(os.Getpid())); err != nil {
		t.Fatal(err)
	}
	socket := hostclient.SocketPath(state)
	ln, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runtime.WriteSocketToken(socket); err != nil {
		t.Fatal(err)
	}
	h := &oldHost{minor: minor}
	srv := grpc.NewServer(grpc.Creds(insecure.NewCredentials()),
		grpc.UnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
			h.record(info.FullMethod)
			return handler(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
			h.record(info.FullMethod)
			return handler(srv, ss)
		}))
	hostv1.RegisterHostServer(srv, h)
	go srv.Serve(ln)
	t.Cleanup(func() {
		srv.Stop()
		lock.Close()
	})
	return h
}

// TestFrontEndMeetsAnOlderHost: the small front end uses a running host
// only when it speaks the protocol minor the command needs, and hands
// the command to the full CLI otherwise, never asking the older host
// anything but the handshake: the interactive session and a `tools call`
// with someone at the terminal need 1.11 (approval cards rendered by the
// host), `mcp serve --http` 1.7. A host of the minor itself is asked. For
// `mcp serve --http`, which the full CLI refuses on an older host, the
// two print the same refusal.
func TestFrontEndMeetsAnOlderHost(t *testing.T) {
	r := newRig(t)
	host := serveOldHost(t, r.state, 6)
	httpArgs := []string{"mcp", "serve", "--http", "127.0.0.1:0"}
	l, h := r.launcher(httpArgs...), r.host(httpArgs...)
	if l != h || l.code != 1 || !strings.Contains(l.stderr, "speaks host protocol 1.6, and mcp serve --http needs 1.7") {
		t.Fatalf("mcp serve --http on a 1.6 host: the launcher and the full CLI differ, or the full CLI did not refuse\nlauncher: %s\nhost: %s", l, h)
	}

	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	call := []string{"tools", "call", "read_file", `{"path":"words.txt"}`}
	// asked: the host was asked something past the handshake.
	for _, tc := range []struct {
		minor            int
		tty              bool
		args             []string
		handsOver, asked bool
	}{
		{10, false, nil, true, false}, // the session
		{10, true, call, true, false},
		{6, false, httpArgs, true, false},
		// The command needs no more than the host speaks: the front end
		// asks it (and, the host failing, says so or, for the session's
		// open, hands over).
		{10, false, call, false, true},
		{11, true, call, false, true},
		{11, false, nil, true, true},
		{7, false, httpArgs, false, true},
	} {
		host.setMinor(tc.minor)
		os.Remove(marker)
		var res result
		if tc.tty {
			_, res = r.ptyDriveEnv("demiurge", nil, false, func(string) (string, bool) { return "", false }, tc.args...)
		} else {
			res = r.launcher(tc.args...)
		}
		what := fmt.Sprintf("%q on a 1.%d host (terminal: %v)", tc.args, tc.minor, tc.tty)
		_, err := os.Stat(marker)
		if handed := err == nil; handed != tc.handsOver {
			t.Errorf("%s: handed over to the full CLI: %v, want %v\n%s", what, handed, tc.handsOver, res)
		}
		if asked := host.beyondHello(); (len(asked) > 0) != tc.asked {
			t.Errorf("%s: the host was asked %v past the handshake; want something: %v\n%s", what, asked, tc.asked, res)
		}
	}
}
