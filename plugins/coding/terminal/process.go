package terminal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// Spawn is what a started command is known by.
type Spawn struct {
	PID         int    `json:"pid"`
	PGID        int    `json:"pgid"`
	SpawnID     string `json:"spawn_id"`
	StartMarker string `json:"start_marker"`
	Shell       string `json:"shell"`
}

// process is one started command: its session leader and the group it
// leads.
type process struct {
	Spawn
	cmd *exec.Cmd
	// exited is closed once the leader has been reaped; state is then set.
	exited chan struct{}
	state  *os.ProcessState

	killOnce sync.Once
	members  []member      // live members last seen by groupAlive
	killed   chan struct{} // closed when terminate has finished
	reason   string        // why the tree was ended; set once, by the first caller
}

// start spawns shell -c command in its own session, with stdout and stderr
// on the given pipe write ends and stdin on /dev/null.
func start(shell, command, dir string, env []string, stdout, stderr *os.File, spawnID string) (*process, error) {
	return startIn(shell, command, dir, env, stdout, stderr, spawnID, sandboxed{})
}

// startIn is start under an OS sandbox (none when sb is empty).
func startIn(shell, command, dir string, env []string, stdout, stderr *os.File, spawnID string, sb sandboxed) (*process, error) {
	cmd := &exec.Cmd{
		Path: shell, Args: []string{shell, "-c", command},
		Dir: dir, Env: env, Stdout: stdout, Stderr: stderr,
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if cmd.Env == nil { // exec.Cmd inherits everything on nil
		cmd.Env = []string{}
	}
	if err := sb.wrap(cmd); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, exited: make(chan struct{}), killed: make(chan struct{})}
	p.PID, p.PGID, p.SpawnID, p.Shell = cmd.Process.Pid, cmd.Process.Pid, spawnID, shell
	// The leader cannot be reaped before Wait below, so its PID and start
	// marker are still its own here, even if it has already exited.
	marker, err := startMarker(p.PID)
	if err != nil {
		// Without a marker the group may never be signalled safely: end
		// the leader through its pidfd-backed handle and give up.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, fmt.Errorf("read start marker of the new process: %w", err)
	}
	p.StartMarker = marker
	go func() {
		_ = cmd.Wait()
		p.state = cmd.ProcessState
		close(p.exited)
	}()
	return p, nil
}

func newSpawnID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "sp_" + hex.EncodeToString(b[:])
}

// terminate ends the whole tree: TERM to the group, up to grace for it to
// go, then KILL. It is single-flight: concurrent and later callers wait for
// the first one and its reason stands.
func (p *process) terminate(reason string, grace time.Duration) {
	p.killOnce.Do(func() {
		p.reason = reason
		defer close(p.killed)
		p.signalTree(syscall.SIGTERM)
		if p.waitGroupGone(grace) {
			return
		}
		p.signalTree(syscall.SIGKILL)
		p.waitGroupGone(killWait)
	})
	<-p.killed
}

// killWait bounds the wait for a group after KILL: the kernel needs a
// moment to tear processes down, never long.
const killWait = 5 * time.Second

// signalTree signals the leader through its handle (a pidfd on Linux, so a
// reaped leader is never confused with a stranger) and then the group, by
// id, after the start marker check.
func (p *process) signalTree(sig syscall.Signal) {
	_ = p.cmd.Process.Signal(sig)
	if err := checkMarker(p.PID, p.StartMarker); err != nil {
		return
	}
	_ = syscall.Kill(-p.PGID, sig)
}

// groupAlive reports whether a live process of the group is left.
// Zombies do not count: an orphan's zombie waits for init to reap it, and
// some inits take seconds. kill(-pgid, 0) answers for free when the group
// is empty; otherwise the members last seen alive are checked one by one,
// and only when all of them are gone is /proc scanned again for members
// forked since.
func (p *process) groupAlive() bool {
	if checkMarker(p.PID, p.StartMarker) != nil {
		return false
	}
	if errors.Is(syscall.Kill(-p.PGID, 0), syscall.ESRCH) {
		return false
	}
	for _, m := range p.members {
		if m.alive() {
			return true
		}
	}
	p.members = groupMembers(p.PGID)
	return len(p.members) > 0
}

// waitGroupGone polls until the group is empty and the leader reaped, or
// d has passed; it reports whether the group is gone.
func (p *process) waitGroupGone(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for wait := time.Millisecond; ; {
		select {
		case <-p.exited:
			if !p.groupAlive() {
				return true
			}
		default:
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(wait)
		if wait < 20*time.Millisecond {
			wait *= 2
		}
	}
}
