// Package firststage is the sandbox helper's first stage, kept apart so
// that a small binary (cmd/sandbox/first) can run it without the Go
// packages the second stage needs (the seccomp library builds tables of
// every architecture when it starts; the JSON, Landlock and network
// code): the first stage starts on every sandboxed command.
package firststage

import (
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Run is the first stage: it starts the helper self in new namespaces
// (args: the rest of the command line, for the second stage) and becomes
// its stand-in: same exit status, signals passed on. The launcher (host or
// plugin) is non-dumpable, and so is a child of it until its execve: its
// /proc files belong to root, so an unprivileged launcher could not write
// the uid_map of a child it started in a new user namespace. This stage,
// a fresh process of the same user, creates the namespaces, and the
// second stage, dumpable after its execve, maps itself (--map).
//
// It starts the second stage with syscall.ForkExec, not os/exec: the os
// package's first start of a process forks a throwaway child to learn
// whether pidfds work (about 0.15 ms), and this stage needs none of it.
func Run(self, net string, args []string) error {
	// The second stage is pid 1 of a new pid namespace: it tells here (fd
	// 3) when it catches its signals, and reports the signal that killed
	// the command, to die of it in turn.
	rd, wr, err := os.Pipe()
	if err != nil {
		return err
	}
	// A process group of its own: the launcher's kill of its group (a
	// tool's timeout) must not reach the second stage before it catches
	// its signals (see relayWhenReady); it reaches this stage, which
	// passes it on.
	attr := &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	switch net {
	case "proxied":
		SetNamespaces(attr, true, true)
	case "offline", "online":
		SetNamespaces(attr, net == "offline", false)
	default:
		return fmt.Errorf("unknown network %q (want offline, online or proxied)", net)
	}
	sigs := make(chan os.Signal, 4)
	notify := func() { signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT) }
	// The second stage maps its own uid and gid (sandbox.MapOwnIDs): its
	// execve made it dumpable, and the kernel lets it map only these.
	// Written from here, the child would wait for this stage to write
	// them: a round trip between the two on every start.
	attr.UidMappings, attr.GidMappings = nil, nil
	argv := append([]string{self, "--map", strconv.Itoa(os.Getuid()), strconv.Itoa(os.Getgid()), "--report-fd", "3"}, args...)
	pid, err := startBesideNotify(notify, func() (int, error) {
		return syscall.ForkExec(self, argv, &syscall.ProcAttr{
			Env:   os.Environ(),
			Files: []uintptr{0, 1, 2, wr.Fd()},
			Sys:   attr,
		})
	})
	if err != nil {
		return fmt.Errorf("cannot start a process in new user, mount and network namespaces: %w", err)
	}
	wr.Close()
	relay := relayWhenReady(pid, rd, sigs)
	for {
		err = unix.Waitid(unix.P_PID, pid, nil, unix.WEXITED|unix.WNOWAIT, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("wait for the namespaced stage: %w", err)
	}
	relay.reaped()
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("wait for the namespaced stage: %w", err)
	}
	if sig := reportedSignal(rd); sig != 0 && ws.Exited() && ws.ExitStatus() == 128+int(sig) {
		dieOf(sig)
	}
	if ws.Signaled() {
		dieOf(ws.Signal())
	}
	os.Exit(ws.ExitStatus())
	return nil
}

// relay passes the signals on sigs to pid, the second stage, but none
// before the second stage writes its ready byte on rd, once it catches
// them: until then it is a pid namespace's init without a handler (the
// kernel drops the signal) or with only the Go runtime's, which cannot
// kill an init and exits 2. A signal that comes earlier waits; if the
// second stage ends before it is ready, what it ended with is reported.
// No signal is passed on once pid is reaped (to a process that took its
// number after).
type relay struct {
	mu       sync.Mutex
	isReaped bool
}

func relayWhenReady(pid int, rd *os.File, sigs <-chan os.Signal) *relay {
	r := &relay{}
	go func() {
		ready := false
		for s := range sigs {
			r.mu.Lock()
			if !r.isReaped {
				if !ready {
					// Under the lock: reaped (and then the report's
					// read) waits for this read, which ends once the
					// second stage has written or is gone.
					var b [1]byte
					_, _ = rd.Read(b[:])
					ready = true
				}
				_ = syscall.Kill(pid, s.(syscall.Signal))
			}
			r.mu.Unlock()
		}
	}()
	return r
}

// reaped: pid has ended and is about to be reaped; no signal goes to it
// from now on, and rd is the caller's again.
func (r *relay) reaped() {
	r.mu.Lock()
	r.isReaped = true
	r.mu.Unlock()
}

// reportedSignal is the signal the second stage reported on rd, after its
// ready byte (which the relay may have read already), or 0.
func reportedSignal(rd *os.File) syscall.Signal {
	defer rd.Close()
	var b [2]byte
	n := 0
	for n < len(b) {
		m, err := rd.Read(b[n:])
		n += m
		if err != nil || m == 0 {
			break
		}
	}
	for _, c := range b[:n] {
		if c != ReadyByte {
			return syscall.Signal(c)
		}
	}
	return 0
}

// ReadyByte is what the second stage writes on the report pipe once it
// catches its signals (sandbox.relaySignals); a signal byte (1 to 64) may
// follow it. Declared here, which the sandbox package imports, since the
// first stage does not import the sandbox (its binary stays small).
const ReadyByte = 0

// dieOf ends this process with signal s, so the launcher sees what
// happened to the command.
func dieOf(s syscall.Signal) {
	signal.Reset(s)
	_ = syscall.Kill(os.Getpid(), s)
	// Delivery is asynchronous: wait for it rather than exit first.
	time.Sleep(time.Second)
}

// NamespaceFlags are the namespaces a sandboxed command starts in.
func NamespaceFlags(offline bool) uintptr {
	// A pid namespace of its own: its pid_max is the process limit.
	f := uintptr(unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWPID)
	if offline {
		f |= unix.CLONE_NEWNET
	}
	return f
}

// SetNamespaces adds new user and mount (and with newNet, network)
// namespaces to attr, mapping only the caller's own uid and gid: no other
// identity exists inside, and no root outside is needed. netAdmin keeps
// CAP_NET_ADMIN too (a proxied command's helper brings its loopback up).
func SetNamespaces(attr *syscall.SysProcAttr, newNet, netAdmin bool) {
	attr.Cloneflags |= NamespaceFlags(newNet)
	uid, gid := os.Getuid(), os.Getgid()
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	// The helper keeps its own uid, so execve would drop the capabilities
	// the new user namespace gave it; as ambient ones, the two it needs
	// (mounting; emptying the bounding set) survive into the helper, which
	// clears every capability before it execs the command.
	attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SETPCAP}
	if netAdmin {
		attr.AmbientCaps = append(attr.AmbientCaps, unix.CAP_NET_ADMIN)
	}
}
