package sandbox

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// reanchorCwd runs in the helper after its mounts. A launcher that pins
// the working directory by descriptor (chdir to /proc/self/fd/N, as the
// terminal does) hands the child a cwd on the launcher's mount namespace:
// relative paths looked up from it pass under none of the read-only and
// masking mounts made here, so `echo x >> agent.yaml` or `cat .env` would
// reach the real files. The helper changes to the same directory by path
// inside its own namespace and checks it is the very same directory.
func reanchorCwd(p Policy) error {
	var before unix.Stat_t
	if err := unix.Stat(".", &before); err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	target := p.Cwd
	if target == "" {
		wd, err := unix.Getwd()
		if err != nil || !strings.HasPrefix(wd, "/") {
			return fmt.Errorf("the working directory is not reachable in the sandbox's mount namespace (%q, %v): the launcher must set Policy.Cwd", wd, err)
		}
		target = wd
	}
	if err := unix.Chdir(target); err != nil {
		return fmt.Errorf("working directory %s: %w", target, err)
	}
	var after unix.Stat_t
	if err := unix.Stat(".", &after); err != nil {
		return fmt.Errorf("working directory: %w", err)
	}
	if before.Dev != after.Dev || before.Ino != after.Ino {
		return fmt.Errorf("working directory %s is not the directory the launcher pinned (it changed); the command was not started", target)
	}
	return nil
}
