package mcp

import (
	"runtime"
	"sync"
	"syscall"
)

// spawner runs process starts on one OS thread that lives until the pool
// closes: Pdeathsig fires when the thread that forked the child exits, so
// a child forked from a goroutine's borrowed thread could be killed early,
// or outlive a crashed host. The thread ends (and the goroutine with it)
// only after every server it started is gone.
type spawner struct {
	once sync.Once
	jobs chan func()
	done chan struct{}
}

func (s *spawner) start() {
	s.once.Do(func() {
		s.jobs, s.done = make(chan func()), make(chan struct{})
		go spawnLoop(s.jobs, s.done)
	})
}

func spawnLoop(jobs chan func(), done chan struct{}) {
	defer close(done)
	runtime.LockOSThread() // never unlocked: the thread ends with the loop
	for job := range jobs {
		job()
	}
}

// run executes fn on the spawn thread and waits for it.
func (s *spawner) run(fn func()) {
	s.start()
	finished := make(chan struct{})
	s.jobs <- func() { defer close(finished); fn() }
	<-finished
}

// stop ends the thread; call it only when no child it started lives.
func (s *spawner) stop() {
	if s.jobs != nil {
		close(s.jobs)
		<-s.done
	}
}

// serverProcAttr puts a stdio server's guard in its own process group, so
// that closing it kills everything the server started, and signals the
// guard when the host dies (the guard then kills the group).
func serverProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// killGroup kills a server's whole process group.
func killGroup(pgid int) {
	if pgid > 1 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}
