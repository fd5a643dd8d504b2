package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTaskSocketAnswersLikeTheManager: another process's view of the live
// tasks, through the owner's socket, with the same scoping.
func TestTaskSocketAnswersLikeTheManager(t *testing.T) {
	m, _ := newManager(t)
	path, srv := serveSocket(t, m)
	defer srv.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi.Mode(), err)
	}
	task, err := m.Start(context.Background(), ownerSpec, writeUntilCancelled)
	if err != nil {
		t.Fatal(err)
	}
	r, err := DialTasks(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if list, err := r.List(operator); err != nil || len(list) != 1 || list[0].ID != task.ID {
		t.Fatalf("remote list = %v, %v", list, err)
	}
	// The socket answers for its host's principal only: another claimed
	// principal is refused outright.
	if _, remoteErr := r.Get(otherUser, task.ID); remoteErr == nil || !strings.Contains(remoteErr.Error(), "answers only for alice") {
		t.Fatalf("foreign principal: %v", remoteErr)
	}
	got, timedOut, err := r.Wait(ctx, ownerScope, task.ID, 30*time.Millisecond)
	if err != nil || !timedOut || got.State.Terminal() {
		t.Fatalf("remote wait = %s timed out %v, %v", got.State, timedOut, err)
	}
	// Follow until the first chunk arrives (output is stored every 100 ms).
	var lines strings.Builder
	enough := errors.New("enough")
	err = r.Logs(ctx, ownerScope, task.ID, 0, true, func(c LogChunk) error { lines.Write(c.Data); return enough })
	if !errors.Is(err, enough) || !strings.HasPrefix(lines.String(), "line 0\n") {
		t.Fatalf("remote logs = %q, %v", lines.String(), err)
	}
	if got, err := r.Cancel(ctx, ownerScope, task.ID); err != nil || got.State != TaskCancelled {
		t.Fatalf("remote cancel = %s, %v", got.State, err)
	}
	if got, timedOut, err := r.Wait(ctx, ownerScope, task.ID, time.Second); err != nil || timedOut || got.State != TaskCancelled {
		t.Fatalf("remote wait after cancel = %s timed out %v, %v", got.State, timedOut, err)
	}
	srv.Close()
	if _, err := DialTasks(path); err == nil {
		t.Fatal("the socket still answers after Close")
	}
}

// FuzzTaskSocketRequest: whatever a client sends, the server answers with
// a final reply (done or error) and never panics; ids outside the scope
// are never answered with a task.
func FuzzTaskSocketRequest(f *testing.F) {
	for _, seed := range []string{
		`{"op":"list","principal":"alice","all_sessions":true}`,
		`{"op":"show","id":"task_done","principal":"alice","session":"ses_a"}`,
		`{"op":"logs","id":"task_done","principal":"alice","session":"ses_a","follow":true,"after":18446744073709551615}`,
		`{"op":"wait","id":"task_done","principal":"mallory","all_sessions":true,"timeout_ms":-5}`,
		`{"op":"cancel","id":"","principal":""}`,
		`{"op":"frob"}`, `not json`, ``, `{"op":"list","principal":null}`,
	} {
		f.Add([]byte(seed))
	}
	s, _ := openTempF(f)
	m, _, err := NewTaskManager(context.Background(), s)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { m.Close(); s.Close() })
	done, err := m.Start(context.Background(), ownerSpec, func(ctx context.Context, out *TaskOutput) TaskOutcome {
		out.Write("stdout", []byte("private output\n"))
		return TaskOutcome{}
	})
	if err != nil {
		f.Fatal(err)
	}
	m.Wait(context.Background(), ownerScope, done.ID, 5*time.Second)
	srv := &TaskServer{m: m, ctx: context.Background(), principal: "alice"}
	f.Fuzz(func(t *testing.T, line []byte) {
		line = []byte(strings.ReplaceAll(string(line), "task_done", done.ID))
		var parsed socketRequest
		if json.Unmarshal(line, &parsed) != nil {
			return // handle refuses it before answer
		}
		var replies []socketReply
		srv.answer(peer{pid: os.Getpid(), uid: os.Getuid()}, parsed, func(r socketReply) bool { replies = append(replies, r); return true })
		if len(replies) == 0 {
			t.Fatal("no reply")
		}
		last := replies[len(replies)-1]
		if !last.Done && last.Error == "" {
			t.Fatalf("the last reply is neither done nor an error: %+v", last)
		}
		var req socketRequest
		if json.Unmarshal(line, &req) == nil && req.Principal != "alice" {
			for _, r := range replies {
				if r.Task != nil || len(r.Tasks) > 0 || r.Chunk != nil {
					t.Fatalf("principal %q was answered with alice's task: %+v", req.Principal, r)
				}
			}
		}
	})
}

func openTempF(tb testing.TB) (*Store, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "runtime.db")
	s, err := Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	return s, path
}

// An owner that exits between DialTasks and a request is ErrOwnerGone, so
// that the caller reads the store instead.
func TestTaskSocketOwnerGone(t *testing.T) {
	m, _ := newManager(t)
	path, srv := serveSocket(t, m)
	r, err := DialTasks(path)
	if err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if _, err := r.List(operator); !errors.Is(err, ErrOwnerGone) {
		t.Fatalf("a request after the owner closed: %v, want ErrOwnerGone", err)
	}
}

// serveSocket serves m's tasks for alice on a socket at socketPath.
func serveSocket(t *testing.T, m *TaskManager) (string, *TaskServer) {
	t.Helper()
	path := socketPath(t)
	srv, err := m.Serve(path, "alice")
	if err != nil {
		t.Fatal(err)
	}
	return path, srv
}

// An owner that exits while a request is under way (its last task ended
// as the request came: it took the connection and closed it, with the
// request read or not) is ErrOwnerGone too, so that `tasks wait` reads
// the task's end from the store instead of failing (CI saw "connection
// reset by peer" there, stop 64).
func TestTaskSocketOwnerGoneMidRequest(t *testing.T) {
	for _, readFirst := range []bool{false, true} {
		path, ln := listenSocket(t)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if readFirst {
				bufio.NewReader(c).ReadString('\n')
			} else {
				time.Sleep(20 * time.Millisecond) // the request is in, unread: closing resets
			}
			c.Close()
			ln.Close()
		}()
		r := &RemoteTasks{path: path, token: "t"}
		if _, err := r.List(operator); !errors.Is(err, ErrOwnerGone) {
			t.Fatalf("read first %v: the owner closed mid-request: %v, want ErrOwnerGone", readFirst, err)
		}
	}
}

// A reply that cannot be read is no owner gone: the store is not read
// in its place (a broken owner is said, not hidden).
func TestTaskSocketBadReplyIsNotOwnerGone(t *testing.T) {
	path, ln := listenSocket(t)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		bufio.NewReader(c).ReadString('\n')
		c.Write([]byte("not a reply\n"))
	}()
	r := &RemoteTasks{path: path, token: "t"}
	if _, err := r.List(operator); err == nil || errors.Is(err, ErrOwnerGone) {
		t.Fatalf("a reply that is not JSON: %v, want an error that is not ErrOwnerGone", err)
	}
}

// listenSocket is a bare listener at socketPath, for an owner a test
// plays by hand.
func listenSocket(t *testing.T) (string, net.Listener) {
	t.Helper()
	path := socketPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return path, ln
}

// socketPath is a task socket's path in a short temporary directory (a
// socket path must be short).
func socketPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ts")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "tasks.sock")
}
