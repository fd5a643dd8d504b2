package runtime

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"demiurge.dev/shared/procstat"
)

// Who may use the task socket. A command or tool any host runs is a
// process of the operator's user, so the user alone proves nothing; the
// socket asks for three things:
//   - the peer's credentials (SO_PEERCRED): this process's user, and no
//     demiurge host or plugin among its ancestors (a command or tool the
//     host runs descends from one; the operator's `demiurge tasks` does
//     not);
//   - a random token the serving host writes 0600 beside the socket for
//     this run only (a command that left the process tree, a daemonised
//     one, still needs it; the state directory is a sensitive path for
//     every tool and the shell guard);
//   - a principal that is the serving host's: the socket answers for that
//     principal only, whatever the request claims.
// Every request is audited, answered or refused, with who asked.

// EventKindTaskSocket is the audit event of one task socket request.
const EventKindTaskSocket = "task.socket"

// TokenPath is the token file of the socket at path.
func TokenPath(socket string) string { return socket + ".token" }

// writeToken makes a fresh token for this run.
func writeToken(socket string) (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	tok := hex.EncodeToString(b[:])
	path := TokenPath(socket)
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("task socket token %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", fmt.Errorf("task socket token %s: %w", path, err)
	}
	_, err = f.WriteString(tok)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("task socket token %s: %w", path, err)
	}
	return tok, nil
}

// readToken reads the token a client sends: a regular file only, opened
// without waiting (a FIFO planted at the path would hang every client).
func readToken(socket string) (string, error) {
	f, err := os.OpenFile(TokenPath(socket), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("the token %s is not a regular file", TokenPath(socket))
	}
	b, err := io.ReadAll(io.LimitReader(f, 128))
	return strings.TrimSpace(string(b)), err
}

// peer is who is on the other end of a connection.
type peer struct {
	pid, uid int
	exe      string
	// runBy names the demiurge host or plugin ancestor, "" if none.
	runBy string
}

func peerOf(c *net.UnixConn) (peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return peer{}, err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return peer{}, err
	}
	if cerr != nil {
		return peer{}, cerr
	}
	p := peer{pid: int(cred.Pid), uid: int(cred.Uid)}
	p.exe, _ = os.Readlink("/proc/" + strconv.Itoa(p.pid) + "/exe")
	p.runBy = HostAncestor(p.pid)
	return p, nil
}

// hostProcessNames are the comm names (at most 15 bytes, as the kernel
// keeps them) of the host and of every toolset plugin.
func isHostProcess(comm string) bool {
	return comm == "demiurge-host" || strings.HasPrefix(comm, "demiurge-toolse")
}

// HostAncestor walks pid's parents up to init and names the first that is
// a demiurge host or plugin ("comm (pid N)"), or "". An ancestry that
// cannot be read is named too, never taken for a clean one: a peer that
// has gone (it connected, handed the connection to a child and exited)
// has no parents left to judge, nor does a process when /proc is not
// there. A walk that loses an ancestor midway (it exited, and its
// children were reparented) is walked again from pid.
func HostAncestor(pid int) string {
	for range 3 {
		if who, ok := hostAncestor(pid); ok {
			return who
		}
		if _, ok := procstat.ParentOf(pid); !ok {
			return fmt.Sprintf("a process whose ancestry cannot be read (pid %d is gone, or /proc unreadable)", pid)
		}
	}
	return fmt.Sprintf("a process whose ancestry kept changing while it was read (pid %d)", pid)
}

// hostAncestor is one walk; false when a parent could not be read.
func hostAncestor(pid int) (string, bool) {
	for range 64 {
		ppid, ok := procstat.ParentOf(pid)
		if !ok {
			return "", false
		}
		if ppid <= 1 {
			return "", true
		}
		comm, err := os.ReadFile("/proc/" + strconv.Itoa(ppid) + "/comm")
		if err != nil {
			return "", false
		}
		if c := strings.TrimSpace(string(comm)); isHostProcess(c) {
			return fmt.Sprintf("%s (pid %d)", c, ppid), true
		}
		pid = ppid
	}
	return "an ancestry deeper than 64 processes", true
}

// admit says why a connection is refused, "" when it may ask.
func (s *TaskServer) admit(p peer, token string) string {
	return AdmitPeer(Peer{PID: p.pid, UID: p.uid, Exe: p.exe, RunBy: p.runBy}, token, s.token, s.path, "the task socket")
}

// audit records one request and its outcome; no record, no answer.
func (s *TaskServer) audit(p peer, req socketRequest, refused string) error {
	if s.m == nil || s.m.store == nil {
		return errors.New("no event log")
	}
	data := map[string]any{
		"op": req.Op, "id": req.ID, "principal": s.principal, "claimed_principal": req.Principal,
		"session": req.Session, "all_sessions": req.AllSessions,
		"peer":    map[string]any{"pid": p.pid, "uid": p.uid, "exe": p.exe},
		"outcome": "answered",
	}
	if refused != "" {
		data["outcome"], data["reason"] = "refused", refused
	}
	body, err := MarshalData(data)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = s.m.store.Append(ctx, Event{Kind: EventKindTaskSocket, Session: req.Session, Data: body})
	return err
}
