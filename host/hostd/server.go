package hostd

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/host/mcp"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/schedule"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// DefaultIdleExit is how long a host with no front end attached and no
// running task waits before it exits (`host start --idle-exit`,
// DEMIURGE_HOST_IDLE_EXIT).
const DefaultIdleExit = 10 * time.Minute

// Options configure a host.
type Options struct {
	// Host is the assembled host; Serve closes it when it ends.
	Host     *toolhost.Host
	StateDir string
	// Config is the canonical host-shaping options this host was started
	// with; a front end with another is refused at Hello.
	Config string
	// IdleExit: 0 is DefaultIdleExit, < 0 never.
	IdleExit time.Duration
	Version  string
	Logger   hclog.Logger
	// Runner runs the agent turns front ends ask for (`demiurge run`);
	// nil: this host refuses them.
	Runner Runner
	// Schedules is the host's scheduler (nil: it runs none). Serve stops
	// its engine before the host closes; the host stays up while a
	// schedule has a next run.
	Schedules *schedule.Manager
}

// Server is the running host's socket.
type Server struct {
	hostv1.UnimplementedHostServer
	opts          Options
	h             *toolhost.Host
	log           hclog.Logger
	socket, token string
	lock          *os.File
	ln            *net.UnixListener
	g             *grpc.Server
	started       time.Time

	attached atomic.Int32
	lastBusy atomic.Int64 // unix nanos
	calls    atomic.Uint64

	stopOnce sync.Once
	stopped  chan struct{}
	why      atomic.Value // string: why the host ended

	mu       sync.Mutex
	sessions map[*toolhost.Session]bool
	// endpoints are the open `mcp serve --http` endpoints, by id.
	endpoints map[string]*connListener
}

// ErrRunning is Lock's answer when a host already owns the state.
type ErrRunning struct{ PID int }

func (e ErrRunning) Error() string {
	return fmt.Sprintf("a host already runs for this state directory (pid %d)", e.PID)
}

// Lock takes the state's host lock for this process's life, and writes
// its pid in it. A host that holds it is ErrRunning. A front end probing
// with Running holds a shared lock for an instant: retry briefly.
func Lock(state string) (*os.File, error) {
	if err := ensureRuntimeDir(state); err != nil {
		return nil, err
	}
	for i := 0; ; i++ {
		f, err := flock(LockPath(state), syscall.LOCK_EX, true)
		if err == nil {
			if err := f.Truncate(0); err == nil {
				_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
			}
			return f, err
		}
		if !errors.Is(err, errLocked) {
			return nil, fmt.Errorf("host lock %s: %w", LockPath(state), err)
		}
		if i == 40 {
			pid, _ := Running(state)
			return nil, ErrRunning{PID: pid}
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// New listens on the state's socket (replacing a stale file: the caller
// holds the lock, so no live host answers there) with a fresh token.
func New(opts Options, lock *os.File) (*Server, error) {
	if opts.Host == nil || lock == nil {
		return nil, errors.New("hostd: no host or no lock")
	}
	if opts.IdleExit == 0 {
		opts.IdleExit = DefaultIdleExit
	}
	if opts.Logger == nil {
		opts.Logger = hclog.NewNullLogger()
	}
	s := &Server{opts: opts, h: opts.Host, log: opts.Logger.Named("hostd"), socket: SocketPath(opts.StateDir),
		lock: lock, started: time.Now(), stopped: make(chan struct{}), sessions: map[*toolhost.Session]bool{}}
	s.lastBusy.Store(time.Now().UnixNano())
	if err := os.Remove(s.socket); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("host socket %s: %w", s.socket, err)
	}
	// The token before the socket: a front end that finds the socket
	// (and the lock held) reads it at once.
	var err error
	if s.token, err = runtime.WriteSocketToken(s.socket); err != nil {
		return nil, err
	}
	// The socket is made 0600 by the umask at bind, not by a chmod after
	// it: no instant where another user could connect.
	old := syscall.Umask(0o177)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.socket, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("host socket %s: %w", s.socket, err)
	}
	ln.SetUnlinkOnClose(false) // Close removes it only while it is ours
	s.ln = ln
	s.g = grpc.NewServer(
		grpc.Creds(peerCreds{}),
		grpc.MaxRecvMsgSize(hostv1.MaxRequestBytes),
		grpc.MaxSendMsgSize(hostv1.MaxReplyBytes),
		grpc.UnaryInterceptor(s.unary),
		grpc.StreamInterceptor(s.stream),
		// A front end that never reads its stream stalls only that
		// stream (flow control is per stream); a connection that never
		// completes its preface is dropped.
		grpc.ConnectionTimeout(5*time.Second),
	)
	hostv1.RegisterHostServer(s.g, s)
	return s, nil
}

// Serve answers front ends until Stop, the idle time, or ctx; then it
// stops the host: running tasks are cancelled through the cancel path,
// plugins stopped, the store closed, the socket and its token removed,
// the lock let go.
func (s *Server) Serve(ctx context.Context) error {
	go s.idleLoop()
	served := make(chan error, 1)
	go func() { served <- s.g.Serve(s.ln) }()
	var err error
	select {
	case <-ctx.Done():
		s.shutdown("signal")
	case <-s.stopped:
	case err = <-served:
		s.shutdown("the listener failed")
	}
	s.log.Info("host ending", "why", s.Why())
	// Let answers in hand go out; streams still open past the grace are
	// cut (their front ends say the host went away).
	done := make(chan struct{})
	go func() { s.g.GracefulStop(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		s.g.Stop()
	}
	if s.opts.Schedules != nil {
		s.opts.Schedules.Engine.Stop() // running runs recorded cancelled
	}
	s.endSessions()
	cerr := s.h.Close()
	os.Remove(runtime.TokenPath(s.socket))
	os.Remove(s.socket)
	s.lock.Close()
	if err == nil {
		err = cerr
	}
	return err
}

// shutdown ends Serve, once; why is logged.
func (s *Server) shutdown(why string) {
	s.stopOnce.Do(func() {
		s.why.Store(why)
		close(s.stopped)
	})
}

// Why is why the host ended ("" while it runs).
func (s *Server) Why() string {
	w, _ := s.why.Load().(string)
	return w
}

func (s *Server) attach(d int32) {
	s.attached.Add(d)
	s.lastBusy.Store(time.Now().UnixNano())
}

// releaseAfter is how long a host waits idle before it returns freed
// memory to the system.
const releaseAfter = 5 * time.Second

// idleLoop stops the host once it has had no front end attached and no
// running task for IdleExit.
func (s *Server) idleLoop() {
	if s.opts.IdleExit < 0 {
		return
	}
	tick := min(s.opts.IdleExit/4, time.Second)
	t := time.NewTicker(max(tick, 10*time.Millisecond))
	defer t.Stop()
	released := false
	for {
		select {
		case <-s.stopped:
			return
		case <-t.C:
		}
		if s.attached.Load() > 0 || s.h.RunningTasks() > 0 || s.schedulesKeepUp() {
			s.lastBusy.Store(time.Now().UnixNano())
			released = false
			continue
		}
		idle := time.Since(time.Unix(0, s.lastBusy.Load()))
		if !released && idle >= releaseAfter {
			// A host that waits with no front end gives the heap its busy
			// spell grew back to the system, once per idle spell
			// (BENCHMARKS.md, issue 24: the RSS after 10,000 calls).
			debug.FreeOSMemory()
			released = true
		}
		if idle >= s.opts.IdleExit {
			s.shutdown(fmt.Sprintf("idle for %s with no front end and no running task", s.opts.IdleExit))
			return
		}
	}
}

// Hello is the version handshake, and the check that the front end wants
// the host this is.
func (s *Server) Hello(_ context.Context, req *hostv1.HelloRequest) (*hostv1.HelloResponse, error) {
	res := &hostv1.HelloResponse{ProtocolVersion: hostv1.ProtocolVersion, ProtocolMinor: hostv1.ProtocolMinor, Pid: int64(os.Getpid()), HostVersion: s.opts.Version}
	if req.ProtocolVersion != hostv1.ProtocolVersion {
		return res, status.Errorf(codes.FailedPrecondition,
			"the running host (pid %d, version %s) speaks host protocol %d and this demiurge speaks %d: stop it with `demiurge host stop` (from the build that started it), then run this again",
			os.Getpid(), s.opts.Version, hostv1.ProtocolVersion, req.ProtocolVersion)
	}
	if diff := configDiff(s.opts.Config, req.Config); diff != "" && req.Config != AnyConfig {
		// Aborted, not FailedPrecondition: the front end may hand the
		// state over to a host of its options when this one is idle.
		return res, status.Errorf(codes.Aborted,
			"the running host (pid %d) serves this state with other options (%s): run with its options, or `demiurge host stop` first",
			os.Getpid(), diff)
	}
	return res, nil
}

// AnyConfig is the config of a front end that only asks for the host's
// status or its stop, whatever options the host was started with.
const AnyConfig = hostclient.AnyConfig

// CoreRevisionOption is the config line naming the core repository's
// live commit a host runs (or a front end read): a host loads its core
// once, so a front end that reads another live needs another host.
const CoreRevisionOption = "core-revision"

// configDiff names the options that differ between two canonical
// configs ("" when none).
func configDiff(host, fe string) string {
	parse := func(s string) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(s, "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				m[k] = v
			}
		}
		return m
	}
	h, f := parse(host), parse(fe)
	if h[CoreRevisionOption] == "" || f[CoreRevisionOption] == "" {
		// One side does not know the live revision (a plain core
		// directory, a repository not made yet, an older build).
		delete(h, CoreRevisionOption)
		delete(f, CoreRevisionOption)
	}
	name := func(k string) string {
		if k == CoreRevisionOption {
			return "the core repository's live revision"
		}
		return "--" + k
	}
	var diff []string
	for k, hv := range h {
		if fv := f[k]; fv != hv {
			diff = append(diff, fmt.Sprintf("%s: host %q, this command %q", name(k), hv, fv))
		}
	}
	for k, fv := range f {
		if _, ok := h[k]; !ok {
			diff = append(diff, fmt.Sprintf("%s: host unset, this command %q", name(k), fv))
		}
	}
	sort.Strings(diff)
	return strings.Join(diff, "; ")
}

// Status is `demiurge host status`.
func (s *Server) Status(context.Context, *hostv1.StatusRequest) (*hostv1.StatusResponse, error) {
	res := &hostv1.StatusResponse{
		Pid: int64(os.Getpid()), StartedUnixMs: s.started.UnixMilli(),
		FrontEnds: uint32(max(s.attached.Load(), 0)), RunningTasks: uint32(s.h.RunningTasks()),
		StateDir: s.opts.StateDir, Config: s.opts.Config, IdleExitMs: s.opts.IdleExit.Milliseconds(),
		Calls: s.calls.Load(), Workspace: s.h.Workspace.Root,
	}
	s.scheduleStatus(res)
	for _, p := range s.h.Plugins.Statuses() {
		if p.State == "running" {
			res.Plugins = append(res.Plugins, fmt.Sprintf("%s (pid %d)", p.Name, p.PID))
		}
	}
	principals := map[string]bool{}
	for _, ses := range s.h.FrontEndSessions() {
		res.Sessions++
		principals[ses.Authority().Principal] = true
		for _, st := range ses.MCPStates() {
			if st.Status == mcp.StatusConnected {
				res.McpConnections = append(res.McpConnections, st.Server+" ("+ses.ID()+")")
			}
		}
	}
	for p := range principals {
		res.Principals = append(res.Principals, p)
	}
	sort.Strings(res.Principals)
	return res, nil
}

// Stop is `demiurge host stop`: answered first, then the host ends.
func (s *Server) Stop(context.Context, *hostv1.StopRequest) (*hostv1.StopResponse, error) {
	// After the answer is on its way: GracefulStop lets it out.
	go s.shutdown("stopped by `demiurge host stop`")
	return &hostv1.StopResponse{}, nil
}

func (s *Server) track(ses *toolhost.Session) (untrack func()) {
	s.mu.Lock()
	s.sessions[ses] = true
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		delete(s.sessions, ses)
		s.mu.Unlock()
		ses.End()
	}
}

func (s *Server) endSessions() {
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[*toolhost.Session]bool{}
	s.mu.Unlock()
	for ses := range all {
		ses.End()
	}
}

// principal is the front end's named principal, "" for the host's own.
func (s *Server) principal(p string) string {
	if p == "" {
		return s.h.RootPrincipal()
	}
	return p
}
