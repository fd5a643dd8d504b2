package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// The task socket lets `demiurge tasks` in another process reach the live
// tasks of the demiurge that holds the store (and so owns them): one JSON
// request line per connection, answered by JSON lines. The socket is 0600;
// who may ask is task_socket_auth.go's.

type socketRequest struct {
	Op          string `json:"op"` // list, show, wait, cancel, logs
	Token       string `json:"token"`
	ID          string `json:"id,omitempty"`
	Principal   string `json:"principal"`
	Session     string `json:"session,omitempty"`
	AllSessions bool   `json:"all_sessions,omitempty"`
	TimeoutMs   int64  `json:"timeout_ms,omitempty"`
	After       uint64 `json:"after,omitempty"`
	Follow      bool   `json:"follow,omitempty"`
}

type socketReply struct {
	Task     *Task     `json:"task,omitempty"`
	Tasks    []Task    `json:"tasks,omitempty"`
	TimedOut bool      `json:"timed_out,omitempty"`
	Chunk    *LogChunk `json:"chunk,omitempty"`
	Done     bool      `json:"done,omitempty"`
	Error    string    `json:"error,omitempty"`
	NotFound bool      `json:"not_found,omitempty"`
}

// maxSocketRequest bounds a request line.
const maxSocketRequest = 8 << 10

// TaskServer answers the task socket for one manager.
type TaskServer struct {
	m    *TaskManager
	l    *net.UnixListener
	path string
	// token is this run's credential; principal is the only one the
	// socket answers for.
	token, principal string
	ctx              context.Context
	cancel           context.CancelFunc
	wg               sync.WaitGroup

	mu    sync.Mutex
	conns map[net.Conn]bool
	// via names the transport a request came by when not this socket
	// (AnswerTaskRequest).
	via string
}

func (s *TaskServer) name() string {
	if s.via != "" {
		return s.via
	}
	return "the task socket"
}

// Serve listens on path for principal's tasks (a stale socket left by a
// dead owner is replaced: the caller holds the store, so no live owner can
// exist), with a fresh token beside it.
func (m *TaskManager) Serve(path, principal string) (*TaskServer, error) {
	if principal == "" {
		return nil, errors.New("task socket: no principal to answer for")
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("task socket %s: %w", path, err)
	}
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("task socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("task socket %s: %w", path, err)
	}
	token, err := writeToken(path)
	if err != nil {
		l.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &TaskServer{m: m, l: l, path: path, token: token, principal: principal, ctx: ctx, cancel: cancel, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// closeGrace is how long Close lets requests already being answered
// finish: a cancel over the socket ends the owner's last task, and the
// owner must not exit before the client has its answer.
const closeGrace = 2 * time.Second

// Close stops listening, lets the requests in hand finish (waits and
// follows end at once: their context is cancelled), ends the connections
// still open after a short grace, and removes the socket.
func (s *TaskServer) Close() error {
	s.cancel()
	err := s.l.Close()
	os.Remove(TokenPath(s.path))
	answered := make(chan struct{})
	go func() { s.wg.Wait(); close(answered) }()
	select {
	case <-answered:
		return err
	case <-time.After(closeGrace):
	}
	s.mu.Lock()
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	<-answered
	return err
}

func (s *TaskServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.l.AcceptUnix()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.ctx.Err() != nil {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.handle(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

func (s *TaskServer) handle(c *net.UnixConn) {
	enc := json.NewEncoder(c)
	reply := func(r socketReply) bool { return enc.Encode(r) == nil }
	fail := func(err error) {
		reply(socketReply{Error: err.Error(), NotFound: errors.Is(err, ErrTaskNotFound)})
	}
	p, err := peerOf(c)
	if err != nil {
		fail(errors.New("the task socket could not tell who is asking"))
		return
	}
	line, err := bufio.NewReaderSize(c, maxSocketRequest).ReadSlice('\n')
	if err != nil {
		fail(errors.New("unreadable task request"))
		return
	}
	var req socketRequest
	if json.Unmarshal(line, &req) != nil {
		_ = s.audit(p, req, "unreadable task request")
		fail(errors.New("unreadable task request"))
		return
	}
	if why := s.admit(p, req.Token); why != "" {
		_ = s.audit(p, req, why)
		fail(errors.New(why))
		return
	}
	s.answer(p, req, reply)
}

// answer runs one admitted request and replies; every reply sequence ends
// with one that is Done or carries an Error. It answers for the server's
// principal only, and not before the request is audited.
func (s *TaskServer) answer(p peer, req socketRequest, reply func(socketReply) bool) {
	fail := func(err error) {
		reply(socketReply{Error: err.Error(), NotFound: errors.Is(err, ErrTaskNotFound)})
	}
	refused := ""
	if req.Principal != s.principal {
		refused = fmt.Sprintf("%s answers only for %s", s.name(), s.principal)
	}
	if err := s.audit(p, req, refused); err != nil {
		fail(fmt.Errorf("the task request could not be audited, so it was not answered: %w", err))
		return
	}
	if refused != "" {
		fail(errors.New(refused))
		return
	}
	var err error
	scope := TaskScope{Principal: s.principal, Session: req.Session, AllSessions: req.AllSessions}
	ctx := s.ctx
	switch req.Op {
	case "list":
		ts, err := s.m.List(scope)
		if err != nil {
			fail(err)
			return
		}
		reply(socketReply{Tasks: ts, Done: true})
	case "show", "cancel", "wait":
		var t Task
		var timedOut bool
		switch req.Op {
		case "show":
			t, err = s.m.Get(scope, req.ID)
		case "cancel":
			t, err = s.m.Cancel(ctx, scope, req.ID)
		case "wait":
			t, timedOut, err = s.m.Wait(ctx, scope, req.ID, time.Duration(req.TimeoutMs)*time.Millisecond)
		}
		if err != nil {
			fail(err)
			return
		}
		reply(socketReply{Task: &t, TimedOut: timedOut, Done: true})
	case "logs":
		err := s.m.Logs(ctx, scope, req.ID, req.After, req.Follow, func(ch LogChunk) error {
			if !reply(socketReply{Chunk: &ch}) {
				return errors.New("the client went away")
			}
			return nil
		})
		if err != nil {
			fail(err)
			return
		}
		reply(socketReply{Done: true})
	default:
		fail(fmt.Errorf("unknown task request %q", req.Op))
	}
}

// ErrOwnerGone is a task request to an owner that no longer answers on
// its socket: it exited (its tasks ended) after DialTasks found it, and
// its record is in the store.
var ErrOwnerGone = errors.New("it has exited")

// RemoteTasks reaches the live tasks of another demiurge through its task
// socket. Its methods answer like TaskManager's.
type RemoteTasks struct {
	path, token string
	// via, when set, carries the requests instead (RemoteTasksVia).
	via TaskTransport
}

// DialTasks returns a client for the socket at path if a live owner
// answers there and its token can be read.
func DialTasks(path string) (*RemoteTasks, error) {
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return nil, err
	}
	c.Close()
	token, err := readToken(path)
	if err != nil {
		return nil, fmt.Errorf("the task socket's token: %w", err)
	}
	return &RemoteTasks{path: path, token: token}, nil
}

// remoteError carries the owner's error text; a missing task stays
// ErrTaskNotFound.
type remoteError struct {
	msg      string
	notFound bool
}

func (e *remoteError) Error() string        { return e.msg }
func (e *remoteError) Is(target error) bool { return e.notFound && target == ErrTaskNotFound }

// call sends req and hands each reply to fn until one is final.
func (r *RemoteTasks) call(ctx context.Context, req socketRequest, fn func(socketReply) error) error {
	if r.via != nil {
		return r.callVia(ctx, req, fn)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", r.path)
	if err != nil {
		return fmt.Errorf("reach the demiurge that owns the tasks (%s): %w: %w", r.path, ErrOwnerGone, err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	req.Token = r.token
	line, _ := json.Marshal(req)
	if _, err := c.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("send task request: %w", err)
	}
	dec := json.NewDecoder(bufio.NewReader(c))
	for {
		var rep socketReply
		if err := dec.Decode(&rep); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if ownerClosed(err) {
				// It exited as the request came (its last task ended):
				// what it recorded is in the store.
				return fmt.Errorf("the demiurge that owns the tasks stopped answering: %w: %w", ErrOwnerGone, err)
			}
			return fmt.Errorf("the demiurge that owns the tasks stopped answering: %w", err)
		}
		if rep.Error != "" {
			return &remoteError{msg: rep.Error, notFound: rep.NotFound}
		}
		if err := fn(rep); err != nil {
			return err
		}
		if rep.Done {
			return nil
		}
	}
}

// ownerClosed reports whether err is the owner's end of the connection
// closing: before its reply (EOF), or with the request unread (a reset);
// not a reply that could not be read.
func ownerClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

func scoped(op string, scope TaskScope, id string) socketRequest {
	return socketRequest{Op: op, ID: id, Principal: scope.Principal, Session: scope.Session, AllSessions: scope.AllSessions}
}

// List is TaskManager.List in the owner.
func (r *RemoteTasks) List(scope TaskScope) ([]Task, error) {
	var out []Task
	err := r.call(context.Background(), scoped("list", scope, ""), func(rep socketReply) error {
		out = rep.Tasks
		return nil
	})
	return out, err
}

func (r *RemoteTasks) one(ctx context.Context, req socketRequest) (Task, bool, error) {
	var t Task
	var timedOut bool
	err := r.call(ctx, req, func(rep socketReply) error {
		if rep.Task != nil {
			t, timedOut = *rep.Task, rep.TimedOut
		}
		return nil
	})
	return t, timedOut, err
}

// Get is TaskManager.Get in the owner.
func (r *RemoteTasks) Get(scope TaskScope, id string) (Task, error) {
	t, _, err := r.one(context.Background(), scoped("show", scope, id))
	return t, err
}

// Wait is TaskManager.Wait in the owner.
func (r *RemoteTasks) Wait(ctx context.Context, scope TaskScope, id string, timeout time.Duration) (Task, bool, error) {
	req := scoped("wait", scope, id)
	req.TimeoutMs = timeout.Milliseconds()
	return r.one(ctx, req)
}

// Cancel is TaskManager.Cancel in the owner.
func (r *RemoteTasks) Cancel(ctx context.Context, scope TaskScope, id string) (Task, error) {
	t, _, err := r.one(ctx, scoped("cancel", scope, id))
	return t, err
}

// Logs is TaskManager.Logs in the owner.
func (r *RemoteTasks) Logs(ctx context.Context, scope TaskScope, id string, after uint64, follow bool, fn func(LogChunk) error) error {
	req := scoped("logs", scope, id)
	req.After, req.Follow = after, follow
	return r.call(ctx, req, func(rep socketReply) error {
		if rep.Chunk != nil {
			return fn(*rep.Chunk)
		}
		return nil
	})
}
