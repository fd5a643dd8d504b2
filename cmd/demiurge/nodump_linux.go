package main

import "golang.org/x/sys/unix"

// The host holds provider keys, bound secrets and approvals in its
// environment and memory. A non-dumpable process's /proc/<pid>/environ,
// mem and maps cannot be read, and it cannot be ptrace-attached, by
// another process of the same user without CAP_SYS_PTRACE: a command or
// tool the host runs is such a process. Set before anything is read; the
// children's execve of a normal binary makes them dumpable again.
func init() {
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
