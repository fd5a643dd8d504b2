package hostd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// testHost is a real host (real plugins, a real store) serving a real
// socket in this process; front ends dial it as the CLI does.
type testHost struct {
	state, ws string
	srv       *Server
	h         *toolhost.Host
	done      chan error
	cancel    context.CancelFunc
}

const testConfig = "core=\nworkspace=test"

func startHost(t testing.TB, idle time.Duration) *testHost {
	t.Helper()
	return startHostWith(t, idle, nil)
}

// startHostWith starts a host whose options withOpts may change (given
// the opened host) before it serves.
func startHostWith(t testing.TB, idle time.Duration, withOpts func(*toolhost.Host, *Options)) *testHost {
	t.Helper()
	state, ws := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("from the workspace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	lock, err := Lock(state)
	if err != nil {
		t.Fatal(err)
	}
	h, err := toolhost.Open(toolhost.Options{StateDir: state, Workspace: ws, BuiltinPluginDir: builtinDir, Approver: approval.DenyAll{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Tasks(); err != nil {
		t.Fatal(err)
	}
	opts := Options{Host: h, StateDir: state, Config: testConfig, IdleExit: idle, Version: "test"}
	if withOpts != nil {
		withOpts(h, &opts)
	}
	srv, err := New(opts, lock)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	th := &testHost{state: state, ws: ws, srv: srv, h: h, done: make(chan error, 1), cancel: cancel}
	go func() { th.done <- srv.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-th.done:
		case <-time.After(30 * time.Second):
			t.Error("the host did not end")
		}
	})
	return th
}

func (th *testHost) dial(t testing.TB) *Client {
	t.Helper()
	c, err := Dial(context.Background(), th.state, DialOptions{Config: testConfig})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// call runs one tool call in a fresh session and answers approvals with
// answer.
func call(ctx context.Context, c *Client, principal, name, args string, answer approval.Answer) (dispatch.Outcome, int, error) {
	stream, err := c.Session(ctx)
	if err != nil {
		return dispatch.Outcome{}, 0, err
	}
	stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: &hostv1.OpenSession{Principal: principal, Asker: true}}})
	stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Call{Call: &hostv1.ToolCall{Name: name, Args: []byte(args)}}})
	asked := 0
	for {
		m, err := stream.Recv()
		if err != nil {
			return dispatch.Outcome{}, asked, err
		}
		switch x := m.Msg.(type) {
		case *hostv1.HostMessage_Approval:
			asked++
			stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Answer{Answer: &hostv1.ApprovalAnswer{Id: x.Approval.Id, Answer: int32(answer)}}})
		case *hostv1.HostMessage_Outcome:
			out, err := DecodeOutcome(x.Outcome.Outcome)
			stream.CloseSend()
			return out, asked, err
		}
	}
}

func TestCallThroughTheSocket(t *testing.T) {
	th := startHost(t, -1)
	c := th.dial(t)
	out, asked, err := call(context.Background(), c, "", "read_file", `{"path":"a.txt"}`, approval.Deny)
	if err != nil || !out.OK() || asked != 0 || !strings.Contains(out.Views.Model.String(), "from the workspace") {
		t.Fatalf("%+v asked=%d %v", out, asked, err)
	}
	// A write asks this front end; its answer decides.
	out, asked, err = call(context.Background(), c, "", "write_file", `{"path":"b.txt","content":"x"}`, approval.Deny)
	if err != nil || out.OK() || asked != 1 || out.Status != dispatch.StatusDenied {
		t.Fatalf("denied: %+v asked=%d %v", out, asked, err)
	}
	if _, err := os.Stat(filepath.Join(th.ws, "b.txt")); err == nil {
		t.Fatal("a denied write was made")
	}
	out, asked, err = call(context.Background(), c, "", "write_file", `{"path":"b.txt","content":"x"}`, approval.AllowOnce)
	if err != nil || !out.OK() || asked != 1 {
		t.Fatalf("allowed: %+v asked=%d %v", out, asked, err)
	}
	fi, err := os.Stat(SocketPath(th.state))
	di, derr := os.Stat(RuntimeDir(th.state))
	if err != nil || derr != nil || fi.Mode().Perm() != 0o600 || di.Mode().Perm() != 0o700 {
		t.Fatalf("socket %v %v, dir %v %v", fi.Mode(), err, di.Mode(), derr)
	}
}

// TestHelloRefusals: a front end of another protocol, another config or
// without the token gets a clear message, not a hang.
func TestHelloRefusals(t *testing.T) {
	th := startHost(t, -1)
	c := th.dial(t)
	ctx := context.Background()
	_, err := c.Hello(ctx, &hostv1.HelloRequest{ProtocolVersion: hostv1.ProtocolVersion + 1, Config: testConfig})
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "speaks host protocol 1 and this demiurge speaks 2") {
		t.Fatalf("newer protocol: %v", err)
	}
	_, err = Dial(ctx, th.state, DialOptions{Config: "core=\nworkspace=elsewhere"})
	if err == nil || !strings.Contains(err.Error(), `--workspace: host "test", this command "elsewhere"`) {
		t.Fatalf("other config: %v", err)
	}
	// Without the token (another user's process could reach the socket
	// no other way; a command the host runs cannot read it).
	tokenFile := runtime.TokenPath(SocketPath(th.state))
	good, _ := os.ReadFile(tokenFile)
	os.WriteFile(tokenFile, []byte(strings.Repeat("0", len(good))), 0o600)
	_, err = Dial(ctx, th.state, DialOptions{Config: testConfig})
	os.WriteFile(tokenFile, good, 0o600)
	if err == nil || !strings.Contains(err.Error(), "needs the token of the running demiurge") {
		t.Fatalf("wrong token: %v", err)
	}
	if _, err := c.Status(ctx, &hostv1.StatusRequest{}); err != nil {
		t.Fatalf("the host stopped answering after the refusals: %v", err)
	}
}

// TestGarbageAndOversize: bytes that are not gRPC, and a request past the
// bound, are refused; the host goes on answering.
func TestGarbageAndOversize(t *testing.T) {
	th := startHost(t, -1)
	raw, err := net.Dial("unix", SocketPath(th.state))
	if err != nil {
		t.Fatal(err)
	}
	raw.Write([]byte("GET / HTTP/1.1\r\n\r\n\x00\xff garbage\n"))
	raw.SetReadDeadline(time.Now().Add(10 * time.Second))
	buf := make([]byte, 1024)
	for {
		if _, err := raw.Read(buf); err != nil {
			break // the host closed it
		}
	}
	raw.Close()
	c := th.dial(t)
	big := `{"path":"` + strings.Repeat("a", hostv1.MaxRequestBytes) + `"}`
	_, _, err = call(context.Background(), c, "", "read_file", big, approval.Deny)
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("oversize: %v", err)
	}
	out, _, err := call(context.Background(), c, "", "read_file", `{"path":"a.txt"}`, approval.Deny)
	if err != nil || !out.OK() {
		t.Fatalf("after garbage and oversize: %+v %v", out, err)
	}
}

// TestDisconnectMidApproval: the front end asked goes away; what it was
// asked is denied (nothing is written), and the host goes on.
func TestDisconnectMidApproval(t *testing.T) {
	th := startHost(t, -1)
	c := th.dial(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	stream, err := c.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: &hostv1.OpenSession{Asker: true}}})
	stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Call{Call: &hostv1.ToolCall{Name: "write_file", Args: []byte(`{"path":"gone.txt","content":"x"}`)}}})
	for {
		m, err := stream.Recv()
		if err != nil {
			t.Fatal(err)
		}
		if m.GetApproval() != nil {
			break
		}
	}
	cancel() // the front end goes away while asked
	store, _ := th.h.Store()
	deadline := time.Now().Add(20 * time.Second)
	for {
		evs, _ := store.Events(runtime.EventQuery{})
		denied := false
		for _, ev := range evs {
			if strings.Contains(string(ev.Data), `"tool":"write_file"`) && strings.Contains(string(ev.Data), "denied") {
				denied = true
			}
		}
		if denied {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no denied write_file in %d events", len(evs))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(filepath.Join(th.ws, "gone.txt")); err == nil {
		t.Fatal("the write of a front end that went away was made")
	}
	out, _, err := call(context.Background(), c, "", "read_file", `{"path":"a.txt"}`, approval.Deny)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
}

// TestStalledFrontEndBlocksNoOne: a front end that never reads its stream
// (a big output waits on it) does not hold up other sessions.
func TestStalledFrontEndBlocksNoOne(t *testing.T) {
	th := startHost(t, -1)
	big := strings.Repeat("line of text to read\n", 200000) // ~4 MiB
	if err := os.WriteFile(filepath.Join(th.ws, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	c := th.dial(t)
	// Many calls sent, none of their outcomes read.
	stalled, err := c.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	stalled.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: &hostv1.OpenSession{}}})
	for range 40 {
		stalled.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Call{Call: &hostv1.ToolCall{Name: "read_file", Args: []byte(`{"path":"big.txt","limit":2000}`)}}})
	}
	other := th.dial(t)
	for i := range 20 {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		out, _, err := call(ctx, other, "", "read_file", `{"path":"a.txt"}`, approval.Deny)
		cancel()
		if err != nil || !out.OK() {
			t.Fatalf("call %d beside a stalled front end: %+v %v", i, out, err)
		}
	}
	stalled.CloseSend()
}

// TestFiftyFrontEndsAtOnce: 50 front ends dial, say Hello and call at
// the same moment; every one is answered.
func TestFiftyFrontEndsAtOnce(t *testing.T) {
	th := startHost(t, -1)
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	start := make(chan struct{})
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := Dial(context.Background(), th.state, DialOptions{Config: testConfig, HelloTimeout: 60 * time.Second})
			if err != nil {
				errs <- fmt.Errorf("front end %d: %w", i, err)
				return
			}
			defer c.Close()
			out, _, err := call(context.Background(), c, "", "read_file", `{"path":"a.txt"}`, approval.Deny)
			if err != nil || !out.OK() {
				errs <- fmt.Errorf("front end %d: %+v %v", i, out.Status, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	st, err := th.dial(t).Status(context.Background(), &hostv1.StatusRequest{})
	if err != nil || st.Calls != 50 {
		t.Fatalf("%v %v", st, err)
	}
}

// TestPrincipalsIsolated: two principals call on one host; a one-shot
// call's session is recorded for no one (it holds no messages), and a
// session of one principal cannot be resumed by the other: it answers
// like a missing one.
func TestPrincipalsIsolated(t *testing.T) {
	th := startHost(t, -1)
	c := th.dial(t)
	for _, p := range []string{"", "x"} {
		if out, _, err := call(context.Background(), c, p, "read_file", `{"path":"a.txt"}`, approval.Deny); err != nil || !out.OK() {
			t.Fatalf("%q: %+v %v", p, out, err)
		}
	}
	store, _ := th.h.Store()
	for _, p := range []string{"x", th.h.RootPrincipal()} {
		if recs, err := store.Sessions(p); err != nil || len(recs) != 0 {
			t.Fatalf("%s: one-shot sessions recorded: %v %v", p, recs, err)
		}
	}
	// A conversation of the host's principal, as a run records it.
	mine := "ses_0123456789abcdef0123"
	if err := store.RecordSession(context.Background(), runtime.SessionRecord{ID: mine, Principal: th.h.RootPrincipal()}); err != nil {
		t.Fatal(err)
	}
	resume := func(principal string) error {
		stream, err := c.Session(context.Background())
		if err != nil {
			return err
		}
		defer stream.CloseSend()
		stream.Send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: &hostv1.OpenSession{Principal: principal, Resume: mine}}})
		_, err = stream.Recv()
		return err
	}
	if err := resume("x"); status.Code(err) != codes.NotFound {
		t.Fatalf("x resumed the operator's session: %v", err)
	}
	if err := resume(""); err != nil {
		t.Fatalf("the operator could not resume its own session: %v", err)
	}
}

// TestStaleSocketAndNoHost: a socket file no host holds is no host; a
// second host on the same state is refused.
func TestStaleSocketAndNoHost(t *testing.T) {
	state := t.TempDir()
	if _, err := Dial(context.Background(), state, DialOptions{}); !errors.Is(err, ErrNoHost) {
		t.Fatalf("empty state: %v", err)
	}
	ensureRuntimeDir(state)
	l, err := net.Listen("unix", SocketPath(state)) // listens, never speaks, no lock
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := Dial(context.Background(), state, DialOptions{}); !errors.Is(err, ErrNoHost) {
		t.Fatalf("stale socket: %v", err)
	}
	// The same listener with the lock held: a process that holds the
	// state and never answers gets a clear error in bounded time.
	lock, err := Lock(state)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	os.WriteFile(runtime.TokenPath(SocketPath(state)), []byte("t"), 0o600)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	begin := time.Now()
	_, err = Dial(context.Background(), state, DialOptions{HelloTimeout: 2 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "did not answer the handshake") || time.Since(begin) > 20*time.Second {
		t.Fatalf("silent holder: %v after %s", err, time.Since(begin))
	}
	if _, err := Lock(state); !errors.As(err, new(ErrRunning)) {
		t.Fatalf("second lock: %v", err)
	}
}

// TestIdleExit: with no front end and no task the host ends by itself.
func TestIdleExit(t *testing.T) {
	th := startHost(t, 300*time.Millisecond)
	c := th.dial(t)
	if _, err := c.Status(context.Background(), &hostv1.StatusRequest{}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-th.done:
		th.done <- nil // for the cleanup
	case <-time.After(30 * time.Second):
		t.Fatal("the idle host did not exit")
	}
	if !strings.Contains(th.srv.Why(), "idle for 300ms") {
		t.Fatal(th.srv.Why())
	}
	if _, running := Running(th.state); running {
		t.Fatal("the lock is still held")
	}
	if _, err := os.Stat(SocketPath(th.state)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("socket left: %v", err)
	}
}
