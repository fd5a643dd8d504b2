package plugins

import (
	"os/exec"
	"runtime"
	"syscall"
)

// spawner starts plugin processes from OS threads that live as long as the
// host. Pdeathsig fires when the thread that forked the child exits, not
// the process, so the fork must happen on a thread that never exits while
// the host runs: goroutines locked to their threads and never returning.
type spawner struct {
	jobs chan func()
}

func newSpawner(threads int) *spawner {
	s := &spawner{jobs: make(chan func())}
	for range threads {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread stays for the process
			for job := range s.jobs {
				job()
			}
		}()
	}
	return s
}

// run executes fn on a spawner thread and waits for it.
func (s *spawner) run(fn func()) {
	done := make(chan struct{})
	s.jobs <- func() { defer close(done); fn() }
	<-done
}

// pluginProcAttr puts the plugin in its own process group, so the host can
// kill the plugin and everything it started, and kills it when the host's
// spawning thread dies.
func pluginProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup sweeps a plugin's process group after the plugin itself is gone.
func killGroup(pid int) {
	if pid > 1 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// command runs the file at path, showing name as argv[0].
func command(path, name string, env []string) *exec.Cmd {
	cmd := &exec.Cmd{Path: path, Args: []string{name}}
	// Capacity clipped: go-plugin appends per-start secrets (the mTLS
	// client certificate) to Env, which must never land in a backing array
	// shared with a concurrent start.
	cmd.Env = env[:len(env):len(env)]
	cmd.SysProcAttr = pluginProcAttr()
	return cmd
}
