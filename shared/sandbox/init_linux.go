package sandbox

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// runAsInit starts the command as the only child of this helper, which
// is pid 1 of the sandbox's pid namespace, and stays its init: it passes
// on the signals a launcher sends, reaps every orphan, and ends with the
// command's status. When it ends, the kernel kills what the command left
// running in the namespace. It must run on the thread the restrictions
// were applied to: the child is a copy of that thread.
//
// after, when set, runs once the command has ended, before this process
// ends with its status.
//
// A pid 1 cannot die of a signal it sent itself, so a command killed by
// signal S is reported as exit status 128+S, and S is written to report
// (when not nil) for the first stage to die of the same signal.
//
// The command leads a process group of its own, and a signal is passed on
// to that group (to the command alone if it left it): the init and the
// command are in no group of their launcher (see firststage.Run), whose
// kill of its group reaches the first stage only, and through it the
// command's processes, as it reached them directly before.
func runAsInit(path string, argv, env []string, report *os.File, after func(), relay *signalRelay) error {
	// The command and its processes cannot read or trace this one.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	sigs, pid, err := relay.startWhenReady(func() (int, error) {
		return syscall.ForkExec(path, argv, &syscall.ProcAttr{
			Env:   env,
			Files: []uintptr{0, 1, 2},
			Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true},
		})
	})
	if err != nil {
		return err
	}
	go func() {
		for s := range sigs {
			if syscall.Kill(-pid, s.(syscall.Signal)) != nil {
				_ = syscall.Kill(pid, s.(syscall.Signal))
			}
		}
	}()
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			os.Exit(exitLost)
		}
		if got != pid {
			continue // an orphan the command left
		}
		if after != nil {
			after()
		}
		if ws.Signaled() {
			if report != nil {
				_, _ = report.Write([]byte{byte(ws.Signal())})
			}
			os.Exit(128 + int(ws.Signal()))
		}
		os.Exit(ws.ExitStatus())
	}
}

// exitLost: the init lost track of its command (wait4 failed).
const exitLost = 125

// initSignals are the signals the init passes on to the command.
var initSignals = []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2, syscall.SIGWINCH}
