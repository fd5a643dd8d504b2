package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"demiurge.dev/shared/procstat"
)

// Guard runs argv as a child and ends every process it leaves behind,
// those that left its process group too (setsid(2), a daemon's double
// fork): it is the child subreaper of its tree (PR_SET_CHILD_SUBREAPER),
// so an orphan of the tree is reparented to it rather than to init, and
// when the child exits, or the guard is sent SIGTERM, SIGHUP or SIGINT (a
// launcher's close, or its Pdeathsig when it dies), it kills every
// descendant until none is left. It returns the child's exit status
// (128+S for a signal S, or for the signal that stopped the guard). The
// child gets SIGKILL if the guard itself dies (Pdeathsig).
//
// It is what the host starts an unsandboxed stdio MCP server through
// (`demiurge-sandbox --guard -- PROGRAM [ARGS...]`); a sandboxed one
// already runs in a pid namespace, which its init ends whole.
func Guard(argv []string) (int, error) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 0, err
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return 0, err
	}
	// The child's Pdeathsig fires when the thread that forked it ends:
	// this one never ends before the process.
	runtime.LockOSThread()
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT)
	pid, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{
		Env: os.Environ(), Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return 0, err
	}
	// One goroutine reaps every child, the orphans reparented here too.
	exited := make(chan syscall.WaitStatus, 1)
	go func() {
		for {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(-1, &ws, 0, nil)
			if err == syscall.EINTR {
				continue
			}
			if err != nil {
				return // ECHILD: none left, or none yet
			}
			if got == pid {
				exited <- ws
			}
		}
	}()
	status := 0
	select {
	case ws := <-exited:
		status = exitStatus(ws)
	case s := <-stop:
		status = 128 + int(s.(syscall.Signal))
	}
	killDescendants()
	return status, nil
}

func exitStatus(ws syscall.WaitStatus) int {
	if ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ws.ExitStatus()
}

// killDescendants sends SIGKILL to every descendant of this process until
// it has no child left, which, for a subreaper, is no descendant left: a
// process forked between a scan and the kill is found by the next scan
// (its parent's death makes it a child of this one). The kernel's word
// (wait4's ECHILD) ends the loop, not the scan's.
func killDescendants() {
	self := os.Getpid()
	for {
		// Reaped here too: the reaping goroutine may have seen none left
		// for a moment and returned. A server that leaves nothing ends
		// the guard here, without a scan.
		for {
			got, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if err == syscall.ECHILD {
				return
			}
			if got <= 0 || err != nil {
				break
			}
		}
		for _, p := range descendants(self) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}

// descendants lists the processes below root: from each process's
// children files (a walk of the tree), or a scan of every process's
// parent where the kernel has none (CONFIG_PROC_CHILDREN).
func descendants(root int) []int {
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		kids, ok := childrenOf(p)
		if !ok {
			return scanDescendants(root)
		}
		out = append(out, kids...)
		queue = append(queue, kids...)
	}
	return out
}

// childrenOf lists pid's children from /proc/PID/task/*/children; ok is
// false when the kernel has no such file. A process gone is childless.
func childrenOf(pid int) ([]int, bool) {
	dir := "/proc/" + strconv.Itoa(pid) + "/task/"
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, true
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + t.Name() + "/children")
		if errors.Is(err, fs.ErrNotExist) {
			if _, serr := os.Stat(dir + t.Name()); serr == nil {
				return nil, false // the task is there, its children file is not
			}
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out, true
}

// scanDescendants lists the processes below root from every process's
// parent in /proc.
func scanDescendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := procstat.ParentOf(pid); ok {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var out []int
	queue := []int{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}
