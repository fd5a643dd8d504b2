package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"demiurge.dev/shared/procfd"
)

// Enforce runs in the helper: it restricts this very process as p says
// and then replaces it with argv (argv[0] is looked up in PATH before the
// restrictions). It returns only on failure, and then nothing has run:
// every missing piece is an error, never a silent "less".
func Enforce(p Policy, argv []string, env []string, report *os.File) error {
	if len(argv) == 0 {
		return errors.New("no command to run")
	}
	if err := p.Validate(); err != nil {
		return err
	}
	env = withoutHelperEnv(env, p.HelperEnv)
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return err
	}
	// Nothing but stdin, stdout and stderr crosses into the command: not
	// what the operator's shell left open, not a launcher's descriptors.
	if err := procfd.CloseOnExecAbove2(); err != nil {
		return fmt.Errorf("mark descriptors close-on-exec: %w", err)
	}
	if p.Mode == Off {
		return syscall.Exec(path, argv, env)
	}
	relay := relaySignals(report)
	// The Landlock domain and the seccomp filter are inherited through
	// fork and execve from the thread that calls them; keep it the one we
	// restrict.
	runtime.LockOSThread()
	if err := checkNamespaces(p); err != nil {
		return err
	}
	s := detectKernel()
	s.UserNS, s.MountNS, s.NetNS = true, true, p.Mode.Offline() || p.Proxy != "" // just checked
	if _, err := s.Enforced(p.Mode); err != nil {
		return err
	}
	// What git or a client would read if a command created it (see
	// creation_linux.go).
	var absent []watched
	if p.Mode.WritesWorkspace() {
		absent = watchedPaths(p.Workspace, p.Watched)
	}
	proxyTook := func() error { return nil }
	if p.Proxy != "" {
		port, wait, err := startForwarder(p.Proxy)
		if err != nil {
			return fmt.Errorf("network mode goes only through the host's egress proxy, which cannot be set up: %w", err)
		}
		env, proxyTook = withProxyEnv(env, port), wait
	}
	if err := applyMounts(p); err != nil {
		return err
	}
	if err := limitProcesses(p.maxProcs()); err != nil {
		return err
	}
	if err := reanchorCwd(p); err != nil {
		return err
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if err := applyLandlock(p, s); err != nil {
		return err
	}
	if err := applySeccomp(p.Mode, s); err != nil {
		return err
	}
	var after func()
	if len(absent) > 0 {
		after = func() {
			endLeftovers()
			for _, w := range absent {
				for _, line := range quarantineCreated(w) {
					fmt.Fprintln(os.Stderr, line)
				}
			}
		}
	}
	// The proxy's answer came while the sandbox was set up.
	if err := proxyTook(); err != nil {
		return err
	}
	return runAsInit(path, argv, withTmpDir(env, p.TmpDir), report, after, relay)
}

// checkNamespaces makes sure the launcher really started us in new
// namespaces (a mount namespace always, a network namespace when
// offline or proxied): the inodes must differ from the launcher's.
func checkNamespaces(p Policy) error {
	mnt, err := nsInode("mnt")
	if err != nil {
		return err
	}
	if p.HostMntNS == 0 || mnt == p.HostMntNS {
		return errors.New("not started in a private mount namespace (the launcher must use sandbox.Wrap)")
	}
	if p.Mode.Offline() || p.Proxy != "" {
		net, err := nsInode("net")
		if err != nil {
			return err
		}
		if p.HostNetNS == 0 || net == p.HostNetNS {
			return errors.New("not started in a private network namespace (the launcher must use sandbox.Wrap)")
		}
	}
	return nil
}

// dropCapabilities empties the bounding, ambient and inheritable sets, so
// that the target keeps no capability (not even in our user namespace,
// and not as uid 0) across execve.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("drop capability %d: %w", c, err)
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear capabilities: %w", err)
	}
	return nil
}

// withTmpDir sets TMPDIR in env.
func withTmpDir(env []string, dir string) []string {
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if len(kv) >= 7 && kv[:7] == "TMPDIR=" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "TMPDIR="+dir)
}
