package shared

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"demiurge.dev/shared/toolsetv1"
)

// TestPluginConnectionSendsNoPings pins FlowWindowBytes: with the options
// both sides of a plugin connection apply, calls carry no HTTP/2 PING in
// either direction (gRPC's bandwidth-delay probing sends one after data
// and waits for its answer: two more wake-ups and socket writes a call).
// The same calls with gRPC's defaults are the control: they do ping, so
// the count below can see a ping when there is one.
func TestPluginConnectionSendsNoPings(t *testing.T) {
	withOptions := pingsDuringCalls(t, GRPCServerOptions(), GRPCDialOptions())
	if withOptions.fromClient != 0 || withOptions.fromServer != 0 {
		t.Errorf("with the plugin connection's options, %d pings from the host and %d from the plugin in 20 calls; want none", withOptions.fromClient, withOptions.fromServer)
	}
	// And both windows, the stream's and the connection's, are at least
	// 4 MiB: 5 MiB received in all needs a window update for each quarter
	// of that (at 64 KiB, a stream or the connection would need one every
	// 16 KiB).
	if most := 20*resultBytes/((4<<20)/4) + 2; withOptions.updatesFromClient > most {
		t.Errorf("the host sent %d window updates for 20 results of %d bytes; want at most %d", withOptions.updatesFromClient, resultBytes, most)
	}
	defaults := pingsDuringCalls(t, nil, nil)
	if defaults.fromClient == 0 || defaults.fromServer == 0 {
		t.Fatalf("with gRPC's defaults, %d pings from the host and %d from the plugin: the count sees no probing, so it proves nothing", defaults.fromClient, defaults.fromServer)
	}
}

type pingCount struct{ fromClient, fromServer, updatesFromClient int }

// pingsDuringCalls makes 20 Invoke calls of 256 KiB results over a Unix
// socket and counts the PING frames (not their answers) each side sent.
func pingsDuringCalls(t *testing.T, serverOpts []grpc.ServerOption, dialOpts []grpc.DialOption) pingCount {
	t.Helper()
	client, in, out := countedConnection(t, serverOpts, dialOpts)
	for i := 0; i < 20; i++ {
		if got := invokeFor(t, client, "read_file", nil); len(got) != resultBytes {
			t.Fatalf("call %d: %d bytes", i, len(got))
		}
	}
	fromClient, updates := out.counts()
	fromServer, _ := in.counts()
	return pingCount{fromClient: fromClient, fromServer: fromServer, updatesFromClient: updates}
}

// TestPluginConnectionCarriesMoreThanItsWindow: a fixed window is flow
// control, not a limit: a request and a result of three windows each
// cross the plugin connection whole.
func TestPluginConnectionCarriesMoreThanItsWindow(t *testing.T) {
	client, _, _ := countedConnection(t, GRPCServerOptions(), GRPCDialOptions())
	args := []byte(`"` + strings.Repeat("a", 3*FlowWindowBytes) + `"`)
	got := invokeFor(t, client, "echo", args)
	if got != string(args) {
		t.Fatalf("the echo came back as %d bytes, want the %d sent", len(got), len(args))
	}
}

// countedConnection serves bigResults over a Unix socket and dials it,
// counting the frames each way.
func countedConnection(t *testing.T, serverOpts []grpc.ServerOption, dialOpts []grpc.DialOption) (toolsetv1.ToolsetClient, *frameCounter, *frameCounter) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "p.sock")
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer(serverOpts...)
	toolsetv1.RegisterToolsetServer(srv, bigResults{})
	go srv.Serve(lis)
	t.Cleanup(srv.Stop)

	out := &frameCounter{skip: len(clientPreface)} // what the client writes
	in := &frameCounter{}                          // what it reads
	dial := func(ctx context.Context, _ string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, "unix", sock)
		if err != nil {
			return nil, err
		}
		return &countedConn{Conn: c, in: in, out: out}, nil
	}
	opts := append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithContextDialer(dial)}, dialOpts...)
	cc, err := grpc.NewClient("passthrough:///plugin", opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return toolsetv1.NewToolsetClient(cc), in, out
}

// invokeFor makes one call and returns its result's content.
func invokeFor(t *testing.T, client toolsetv1.ToolsetClient, tool string, args []byte) string {
	t.Helper()
	stream, err := client.Invoke(context.Background(), &toolsetv1.EffectRequest{Tool: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	return ev.GetResult().GetContent()
}

const resultBytes = 256 << 10

// clientPreface opens every HTTP/2 connection a client makes (RFC 9113 §3.4).
const clientPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

type bigResults struct {
	toolsetv1.UnimplementedToolsetServer
}

// Invoke answers resultBytes of content, or echo's arguments as they came.
func (bigResults) Invoke(req *toolsetv1.EffectRequest, s grpc.ServerStreamingServer[toolsetv1.InvokeEvent]) error {
	content := strings.Repeat("x", resultBytes)
	if req.GetTool() == "echo" {
		content = string(req.GetArguments())
	}
	return s.Send(&toolsetv1.InvokeEvent{Event: &toolsetv1.InvokeEvent_Result{Result: &toolsetv1.ToolResult{Content: content}}})
}

type countedConn struct {
	net.Conn
	in, out *frameCounter
}

func (c *countedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.in.feed(p[:n])
	return n, err
}

func (c *countedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.out.feed(p[:n])
	return n, err
}

// frameCounter follows one direction of an HTTP/2 connection frame by
// frame (a 9-byte header: length, type, flags, stream; RFC 9113 §4.1)
// and counts the PING frames that are not acknowledgements and the
// WINDOW_UPDATE frames.
type frameCounter struct {
	mu             sync.Mutex
	skip           int
	buf            []byte
	pings, updates int
}

func (f *frameCounter) feed(p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := min(f.skip, len(p))
	f.skip, p = f.skip-n, p[n:]
	f.buf = append(f.buf, p...)
	for len(f.buf) >= 9 {
		size := int(f.buf[0])<<16 | int(f.buf[1])<<8 | int(f.buf[2])
		if len(f.buf) < 9+size {
			return
		}
		const typePing, typeWindowUpdate, flagAck = 0x6, 0x8, 0x1
		switch {
		case f.buf[3] == typePing && f.buf[4]&flagAck == 0:
			f.pings++
		case f.buf[3] == typeWindowUpdate:
			f.updates++
		}
		f.buf = f.buf[9+size:]
	}
}

// counts is how many PINGs and WINDOW_UPDATEs went by.
func (f *frameCounter) counts() (pings, updates int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pings, f.updates
}
