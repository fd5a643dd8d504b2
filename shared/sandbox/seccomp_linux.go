package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp programs (their rules: package seccomprules), numbered for
// seccompProgram: a command's by whether it is offline and whether
// AF_UNIX sockets are refused, and a package plugin's.
const (
	filterOnline        = 0
	filterOnlineNoUnix  = 1
	filterOffline       = 2
	filterOfflineNoUnix = 3
	filterPlugin        = 4
	filterCount         = 5
)

// commandFilter is the number of a sandboxed command's program.
func commandFilter(offline, denyUnix bool) int {
	i := filterOnline
	if offline {
		i = filterOffline
	}
	if denyUnix {
		i++
	}
	return i
}

// applySeccomp loads the command's filter (seccomprules.Command) on the
// calling thread, the one that execs (see applyLandlock): denyUnix
// below Landlock ABI 9, which cannot restrict connecting to pathname
// unix sockets.
func applySeccomp(m Mode, s Support) error {
	return loadSeccomp(commandFilter(m.Offline(), !s.FSResolveUnix))
}

// loadSeccomp sets no_new_privs and loads program i on the calling
// thread.
func loadSeccomp(i int) error {
	filters, err := seccompProgram(i)
	if err != nil {
		return err
	}
	if len(filters) == 0 {
		return fmt.Errorf("seccomp: program %d is empty", i)
	}
	prog := unix.SockFprog{Len: uint16(len(filters)), Filter: &filters[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return fmt.Errorf("seccomp: load filter: %w", e)
	}
	return nil
}
