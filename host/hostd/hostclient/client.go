// Package hostclient is a front end's side of the host socket: finding
// the running host of a state directory, dialling it and saying Hello. It
// links gRPC and the host protocol, and nothing of the host itself (no
// dispatch, plugins, schema validator or model SDK), so that a small
// front end (bin/demiurge-front) can use it; package hostd, the host,
// re-exports it for the full CLI.
package hostclient

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// Client is a front end's connection to the running host.
type Client struct {
	hostv1.HostClient
	conn *grpc.ClientConn
	// PID is the host's, as it said at Hello.
	PID    int
	Socket string
	// Minor is the host's protocol minor.
	Minor int
}

// Needs says why the host cannot answer what protocol minor added
// (nil when it can): a host started by an older build.
func (c *Client) Needs(minor int, what string) error {
	if c.Minor >= minor {
		return nil
	}
	return fmt.Errorf("the running host (pid %d) speaks host protocol %d.%d, and %s needs %d.%d: stop it with `demiurge host stop`, and the next command starts a current one",
		c.PID, hostv1.ProtocolVersion, c.Minor, what, hostv1.ProtocolVersion, minor)
}

// Close lets go of the connection.
func (c *Client) Close() error { return c.conn.Close() }

// DialOptions say what the front end wants of the host.
type DialOptions struct {
	// Config is the front end's canonical host-shaping options.
	Config    string
	Principal string
	// HelloTimeout bounds the handshake; 0 is 5s. Something that accepts
	// the connection and never speaks the protocol gets a clear error
	// after it, never a hang.
	HelloTimeout time.Duration
}

// AnyConfig is the config of a front end that only asks for the host's
// status or its stop (a command yielding the state, `host status|stop`),
// whatever options the host was started with.
const AnyConfig = "*"

// ErrNoHost is Dial's answer when no host runs for the state (no socket,
// or a stale one whose host is gone).
var ErrNoHost = errors.New("no host runs for this state directory")

// tokenCreds sends the socket's token with every call.
type tokenCreds string

func (t tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{hostv1.TokenMetadata: string(t)}, nil
}
func (tokenCreds) RequireTransportSecurity() bool { return false }

// Dial connects to the state's running host and says Hello.
func Dial(ctx context.Context, state string, o DialOptions) (*Client, error) {
	socket := SocketPath(state)
	pid, running := Running(state)
	if !running {
		return nil, ErrNoHost // no socket, or a stale one whose host is gone
	}
	// A host holds the state: while it starts (its store and tasks are
	// opened before it listens) its socket or token may not be there yet.
	var token string
	for deadline := time.Now().Add(30 * time.Second); ; {
		_, serr := os.Lstat(socket)
		var terr error
		if serr == nil {
			token, terr = runtime.ReadSocketToken(socket)
		}
		if serr == nil && terr == nil {
			break
		}
		if _, still := Running(state); !still {
			return nil, ErrNoHost
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the host (pid %d) holds this state but has not listened on %s in 30s (see %s)", pid, socket, "STATE/logs/host.log")
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	var refused atomic.Pointer[error]
	conn, err := grpc.NewClient("passthrough:///host.sock",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "unix", socket)
		}),
		grpc.WithTransportCredentials(clientCreds{refused: &refused}),
		grpc.WithPerRPCCredentials(tokenCreds(token)),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(hostv1.MaxReplyBytes), grpc.MaxCallSendMsgSize(hostv1.MaxRequestBytes)),
	)
	if err != nil {
		return nil, fmt.Errorf("host socket %s: %w", socket, err)
	}
	c := &Client{HostClient: hostv1.NewHostClient(conn), conn: conn, Socket: socket}
	timeout := o.HelloTimeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := c.Hello(hctx, &hostv1.HelloRequest{
		ProtocolVersion: hostv1.ProtocolVersion, ProtocolMinor: hostv1.ProtocolMinor,
		Config: o.Config, Principal: o.Principal,
	}, grpc.WaitForReady(false))
	if err != nil {
		conn.Close()
		if why := refused.Load(); why != nil {
			return nil, *why // another user's socket: never waited on
		}
		if status.Code(err) == codes.Unavailable && leaving(state) {
			return nil, ErrNoHost
		}
		return nil, helloError(socket, pid, err)
	}
	c.PID, c.Minor = int(res.Pid), int(res.ProtocolMinor)
	return c, nil
}

// leaving reports whether the host that holds state is going away: its
// socket could not be reached because it is exiting (an idle exit, or a
// stop from another front end, closes the socket before the store), and
// it lets go of the state's lock soon after. A command that came in that
// moment then finds no host, as it would a moment later.
func leaving(state string) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, running := Running(state); !running {
			return true
		}
	}
	return false
}

// OtherOptionsError is Hello's refusal of a front end whose host-shaping
// options differ from the running host's.
type OtherOptionsError struct {
	PID int
	msg string
}

func (e *OtherOptionsError) Error() string { return e.msg }

// helloError says why the handshake failed, in the operator's words.
func helloError(socket string, pid int, err error) error {
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.Aborted:
		return &OtherOptionsError{PID: pid, msg: st.Message()}
	case codes.FailedPrecondition, codes.PermissionDenied:
		return errors.New(st.Message())
	case codes.DeadlineExceeded:
		return fmt.Errorf("the host (pid %d) holds this state but did not answer the handshake on %s in time: it may be stuck; `kill %d` ends it, and the next command starts a new one", pid, socket, pid)
	case codes.Unimplemented:
		return fmt.Errorf("the process on %s (pid %d) does not speak the demiurge host protocol: stop it (`kill %d`)", socket, pid, pid)
	}
	return fmt.Errorf("the host (pid %d) holds this state but does not answer on %s: %s", pid, socket, st.Message())
}

// Ensure dials the state's host, starting one with start when none runs.
// Front ends that start at once serialise on the start lock, so only the
// first starts a host and the others connect to it.
func Ensure(ctx context.Context, state string, o DialOptions, start func() error) (*Client, error) {
	c, err := Dial(ctx, state, o)
	if !errors.Is(err, ErrNoHost) {
		return c, err
	}
	if err := EnsureRuntimeDir(state); err != nil {
		return nil, err
	}
	lock, err := startLock(ctx, state)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	c, err = Dial(ctx, state, o)
	if !errors.Is(err, ErrNoHost) {
		return c, err
	}
	if err := start(); err != nil {
		// A host started another way (a service manager) may have won.
		if c, derr := Dial(ctx, state, o); derr == nil {
			return c, nil
		}
		return nil, err
	}
	return Dial(ctx, state, o)
}

// startLock waits for the start lock, up to a bound: a front end starting
// a host holds it for as long as the host takes to listen.
func startLock(ctx context.Context, state string) (*os.File, error) {
	deadline := time.Now().Add(60 * time.Second)
	for {
		f, err := Flock(StartLockPath(state), syscall.LOCK_EX, true)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("host start lock: %w", err)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("another front end has been starting the host for a minute (%s held)", StartLockPath(state))
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}
