// Package procfd keeps a process's descriptors from reaching the programs
// it starts: only stdin, stdout, stderr and what a launcher passes on
// purpose (exec.Cmd.ExtraFiles) may cross an execve.
package procfd

import (
	"errors"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// CloseOnExecAbove2 marks every descriptor above 2 close-on-exec. Go opens
// its own with O_CLOEXEC, but a descriptor the process inherited (one the
// operator's shell left open, a launcher's ExtraFiles such as a plugin's
// sealed image) stays inheritable and would pass to every child. The
// descriptors stay usable by this process. close_range(2) does it in one
// call (Linux 5.11); older kernels get the same by walking /proc/self/fd.
func CloseOnExecAbove2() error {
	err := unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC)
	if err == nil || !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EINVAL) {
		return err
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return err
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC); err != nil && !errors.Is(err, unix.EBADF) {
			return err // EBADF: the directory's own descriptor, closed since
		}
	}
	return nil
}
