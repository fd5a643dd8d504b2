package sandbox

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// mountProc gives the pid namespace its own /proc, so that pids a
// command sees ($$, jobs) name its own processes there. A kernel that
// refuses the mount (a /proc partly masked, as in some containers) keeps
// the launcher's /proc, which still works through /proc/self.
func mountProc() error {
	err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "")
	if errors.Is(err, unix.EPERM) {
		return nil
	}
	return err
}

// limitProcesses sets the pid namespace's pid_max: pids 1..n exist, so at
// most n processes and threads at once. It fails (and the command does not
// run) on a kernel without per-namespace pid_max.
func limitProcesses(n int) error {
	if unix.Getpid() != 1 {
		return errors.New("not the init of a pid namespace of its own (the launcher must use sandbox.Wrap)")
	}
	if err := os.WriteFile("/proc/sys/kernel/pid_max", []byte(strconv.Itoa(n+1)), 0); err != nil {
		return fmt.Errorf("process limit %d (pid_max of the sandbox's pid namespace, Linux 6.14 or later): %w", n, err)
	}
	return nil
}

// mountTmp puts a tmpfs of mib MiB over the private tmp dir, in the
// sandbox's mount namespace only: what a command spills into TMPDIR
// (sort, compilers) is bounded, never reaches the file system under it,
// and is gone when the command ends.
func mountTmp(dir string, mib int) error {
	opts := "size=" + strconv.Itoa(mib) + "m,mode=0700"
	if err := unix.Mount("tmpfs", dir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, opts); err != nil {
		return fmt.Errorf("private tmp dir %s (tmpfs of %d MiB): %w", dir, mib, err)
	}
	return nil
}
