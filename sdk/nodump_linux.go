package sdk

import "golang.org/x/sys/unix"

// NonDumpable is what Serve does first, for a plugin that serves without
// Serve (the authored-tool runner).
func NonDumpable() error { return nonDumpable() }

// nonDumpable makes the plugin process non-dumpable before it serves, so
// that a command or tool it runs (same user) cannot read its environment
// or memory (a bound secret lives there during a call) or ptrace it.
// Children are dumpable again after their execve.
func nonDumpable() error {
	// Named first: once non-dumpable, /proc/self belongs to root and a
	// plugin running as another user can no longer write its comm.
	nameProcess()
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
