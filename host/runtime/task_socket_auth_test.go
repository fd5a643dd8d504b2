package runtime

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// socketFixture is a manager with one running task of alice's and its
// socket.
func socketFixture(t *testing.T) (m *TaskManager, s *Store, path string, task Task) {
	t.Helper()
	m, s = newManager(t)
	dir, err := os.MkdirTemp("", "ts")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path = filepath.Join(dir, "tasks.sock")
	srv, err := m.Serve(path, "alice")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	if fi, err := os.Stat(TokenPath(path)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	task, err = m.Start(context.Background(), ownerSpec, writeUntilCancelled)
	if err != nil {
		t.Fatal(err)
	}
	return m, s, path, task
}

// rawRequest sends one line and returns the first reply.
func rawRequest(t *testing.T, path string, req socketRequest) socketReply {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	line, _ := json.Marshal(req)
	c.Write(append(line, '\n'))
	var rep socketReply
	if err := json.NewDecoder(bufio.NewReader(c)).Decode(&rep); err != nil {
		t.Fatal(err)
	}
	return rep
}

// socketEvents are the task.socket audit events so far.
func socketEvents(t *testing.T, s *Store) []map[string]any {
	t.Helper()
	evs, err := s.Events(EventQuery{Kind: EventKindTaskSocket})
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, ev := range evs {
		var d map[string]any
		json.Unmarshal(ev.Data, &d)
		out = append(out, d)
	}
	return out
}

// TestTaskSocketRefusals: without this run's token, or for a principal
// that is not the host's, nothing is answered, and each refusal is
// audited with who asked.
func TestTaskSocketRefusals(t *testing.T) {
	m, s, path, task := socketFixture(t)
	token, _ := readToken(path)
	for _, tc := range []struct {
		name string
		req  socketRequest
		want string
	}{
		{"no token", socketRequest{Op: "cancel", ID: task.ID, Principal: "alice", AllSessions: true}, "needs the token"},
		{"a wrong token", socketRequest{Op: "cancel", ID: task.ID, Principal: "alice", AllSessions: true, Token: strings.Repeat("0", 64)}, "needs the token"},
		{"another principal", socketRequest{Op: "list", Principal: "mallory", AllSessions: true, Token: token}, "answers only for alice"},
		{"an empty principal", socketRequest{Op: "cancel", ID: task.ID, AllSessions: true, Token: token}, "answers only for alice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(socketEvents(t, s))
			rep := rawRequest(t, path, tc.req)
			if !strings.Contains(rep.Error, tc.want) || rep.Task != nil || len(rep.Tasks) != 0 {
				t.Fatalf("reply %+v, want an error containing %q", rep, tc.want)
			}
			evs := socketEvents(t, s)
			if len(evs) != before+1 {
				t.Fatalf("%d new audit events", len(evs)-before)
			}
			ev := evs[len(evs)-1]
			peer, _ := ev["peer"].(map[string]any)
			if ev["outcome"] != "refused" || ev["op"] != tc.req.Op || peer["pid"] != float64(os.Getpid()) || !strings.Contains(ev["reason"].(string), tc.want) {
				t.Fatalf("audit %v", ev)
			}
		})
	}
	if got, _ := m.Get(ownerScope, task.ID); got.State.Terminal() {
		t.Fatalf("a refused request ended the task: %s", got.State)
	}
	// The operator's client, with the token: answered and audited.
	r, err := DialTasks(path)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := r.List(operator); err != nil || len(list) != 1 {
		t.Fatalf("list %v %v", list, err)
	}
	evs := socketEvents(t, s)
	if ev := evs[len(evs)-1]; ev["outcome"] != "answered" || ev["op"] != "list" || ev["principal"] != "alice" {
		t.Fatalf("audit %v", ev)
	}
}

// TestTaskSocketRefusesWhatAHostRuns is the attack of issue 11: a command
// run by a host (here a child of a process named demiurge-host) cancelled
// another host's task with all_sessions, holding everything a client
// needs. The socket refuses it by its ancestry.
func TestTaskSocketRefusesWhatAHostRuns(t *testing.T) {
	if os.Getenv("DEMIURGE_TASK_SOCKET_CLIENT") != "" {
		return // the helper runs as TestTaskSocketClientHelper
	}
	m, s, path, task := socketFixture(t)
	// A host stand-in: a copy of sh named like the host binary, running
	// this test binary as its command (not exec'd: sh stays the parent).
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	host := filepath.Join(t.TempDir(), "demiurge-host")
	b, err := os.ReadFile(sh)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(host, b, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, host, "-c", `"$0" -test.run='^TestTaskSocketClientHelper$' -test.v; echo "exit $?"`, exe)
	cmd.Env = append(os.Environ(), "DEMIURGE_TASK_SOCKET_CLIENT="+path, "DEMIURGE_TASK_SOCKET_TASK="+task.ID)
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "HELPER refused: the task socket does not answer commands or tools a demiurge runs (this one descends from demiurge-host") {
		t.Fatalf("the helper was not refused by ancestry:\n%s", out)
	}
	if got, _ := m.Get(ownerScope, task.ID); got.State.Terminal() {
		t.Fatalf("the host's command ended the task: %s", got.State)
	}
	evs := socketEvents(t, s)
	if len(evs) == 0 || evs[len(evs)-1]["outcome"] != "refused" || evs[len(evs)-1]["all_sessions"] != true {
		t.Fatalf("audit %v", evs)
	}
}

// TestTaskSocketClientHelper is the client the attack runs; it does
// nothing unless started by TestTaskSocketRefusesWhatAHostRuns.
func TestTaskSocketClientHelper(t *testing.T) {
	path := os.Getenv("DEMIURGE_TASK_SOCKET_CLIENT")
	if path == "" {
		t.Skip("run by TestTaskSocketRefusesWhatAHostRuns")
	}
	r, err := DialTasks(path)
	if err != nil {
		t.Fatalf("HELPER dial: %v", err)
	}
	_, err = r.Cancel(context.Background(), TaskScope{Principal: "alice", AllSessions: true}, os.Getenv("DEMIURGE_TASK_SOCKET_TASK"))
	if err != nil {
		t.Logf("HELPER refused: %v", err)
		return
	}
	t.Log("HELPER cancelled the task")
}

// TestPeerThatHasGoneIsNotAdmitted: a process connects and exits before
// its connection is judged (a command that hands its connection to a
// child, or one that connects while the host is stopped, and is reaped).
// Its ancestry can no longer be read, and that is a refusal, not a clean
// ancestry: otherwise any process could shed the host's tree that way.
func TestPeerThatHasGoneIsNotAdmitted(t *testing.T) {
	dir, err := os.MkdirTemp("", "gone")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "s.sock")
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	exe, _ := os.Executable()
	child := exec.Command(exe, "-test.run=^TestDialAndExitHelper$")
	child.Env = append(os.Environ(), "DEMIURGE_DIAL_AND_EXIT="+path)
	if out, err := child.CombinedOutput(); err != nil || !strings.Contains(string(out), "DIALLED") {
		t.Fatalf("the dialling child: %v\n%s", err, out)
	}
	c, err := ln.AcceptUnix() // the child is gone and reaped
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := PeerOf(c)
	if err != nil {
		t.Fatal(err)
	}
	if p.PID != child.Process.Pid {
		t.Fatalf("peer pid %d, the child was %d", p.PID, child.Process.Pid)
	}
	why := AdmitPeer(p, "tok", "tok", path, "the host socket")
	if !strings.Contains(why, "ancestry cannot be read") {
		t.Fatalf("a peer that has gone was judged %q", why)
	}
	if who := HostAncestor(os.Getpid()); who != "" {
		t.Fatalf("this test's own ancestry reads as %q", who)
	}
}

// TestDialAndExitHelper dials and exits; it does nothing unless started
// by TestPeerThatHasGoneIsNotAdmitted.
func TestDialAndExitHelper(t *testing.T) {
	path := os.Getenv("DEMIURGE_DIAL_AND_EXIT")
	if path == "" {
		return
	}
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	_ = c
	println("DIALLED")
}
