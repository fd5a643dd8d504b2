package mcp

import (
	"runtime"
	"sync"
	"syscall"
)

// spawnThread runs process starts on one OS thread that lives as long as
// the host: Pdeathsig fires when the thread that forked the child exits,
// so a child forked from a goroutine's borrowed thread could be killed
// early, or outlive a crashed host.
var spawnThread = sync.OnceValue(func() chan func() {
	jobs := make(chan func())
	go spawnLoop(jobs)
	return jobs
})

func spawnLoop(jobs chan func()) {
	runtime.LockOSThread() // never unlocked: the thread stays for the process
	for job := range jobs {
		job()
	}
}

// onSpawnThread runs fn on the spawn thread and waits for it.
func onSpawnThread(fn func()) {
	done := make(chan struct{})
	spawnThread() <- func() { defer close(done); fn() }
	<-done
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
