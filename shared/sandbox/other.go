//go:build !linux

package sandbox

import (
	"errors"
	"os"
	"os/exec"
)

// errNotLinux: Landlock, seccomp and these namespaces are Linux's.
var errNotLinux = errors.New("the OS sandbox needs Linux (Landlock, seccomp, user namespaces)")

// Detect reports that nothing can be enforced here.
func Detect(string) Support {
	return Support{LandlockError: errNotLinux.Error(), NSError: errNotLinux.Error()}
}

// HostNamespaces has nothing to report here.
func HostNamespaces() (netns, mntns uint64, err error) { return 0, 0, errNotLinux }

// Wrap refuses every mode but off: the caller must not run unconfined.
func Wrap(cmd *exec.Cmd, helper string, p Policy) error {
	if p.Mode == Off {
		return nil
	}
	return errNotLinux
}

// Enforce refuses every mode but off, which it cannot exec either.
func Enforce(p Policy, argv []string, env []string, report *os.File) error { return errNotLinux }

// Guard needs Linux's child subreaper.
func Guard([]string) (int, error) { return 0, errNotLinux }
