package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"

	"demiurge.dev/shared/sandbox/firststage"
)

var (
	detectMu    sync.Mutex
	detectCache = map[string]Support{}
)

// Detect reports what this kernel enforces. probe is an executable (the
// helper) started once in new user, mount and network namespaces to learn
// whether an unprivileged launcher can create them; the answer is cached
// per probe for the life of the process.
func Detect(probe string) Support {
	detectMu.Lock()
	defer detectMu.Unlock()
	if s, ok := detectCache[probe]; ok {
		return s
	}
	s := detectKernel()
	if err := probeNamespaces(probe); err != nil {
		s.NSError = err.Error()
	} else {
		s.UserNS, s.MountNS, s.NetNS = true, true, true
	}
	detectCache[probe] = s
	return s
}

// detectKernel is the part of Detect that needs no child process.
func detectKernel() Support {
	var s Support
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case forcedNoLandlock:
		s.Forced = "landlock disabled by a test build (demiurge_nolandlock)"
		s.LandlockError = s.Forced
	case err != nil:
		s.LandlockError = fmt.Sprintf("landlock unavailable: %v", err)
	default:
		s.fromABI(abi)
	}
	s.Seccomp = seccompAvailable()
	return s
}

// seccompAvailable asks the kernel whether filter mode can return errno.
func seccompAvailable() bool {
	action := uint32(unix.SECCOMP_RET_ERRNO)
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_GET_ACTION_AVAIL, 0, uintptr(unsafe.Pointer(&action)))
	return e == 0
}

// probeNamespaces starts probe --probe in fresh namespaces, mapped to the
// caller's own uid and gid, exactly as Wrap does.
func probeNamespaces(probe string) error {
	if probe == "" {
		return fmt.Errorf("no probe executable to test namespaces with")
	}
	cmd := exec.Command(probe, "--spawn", spawnNet(true, false), "--probe")
	cmd.Env = []string{}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("cannot start a process in new user, mount and network namespaces: %v %s", err, out)
	}
	return nil
}

// SetNamespaces adds new user and mount (and, offline, network)
// namespaces to attr, mapping only the caller's own uid and gid: no other
// identity exists inside, and no root outside is needed.
func SetNamespaces(attr *syscall.SysProcAttr, offline bool) {
	setNamespaces(attr, offline, false)
}

func setNamespaces(attr *syscall.SysProcAttr, newNet, netAdmin bool) {
	firststage.SetNamespaces(attr, newNet, netAdmin)
}

// MapOwnIDs maps uid and gid, the launcher's, to themselves in this
// process's new user namespace (setgroups denied first, as an
// unprivileged mapping requires). The helper's first stage leaves this to
// the second: after its execve the second stage is dumpable, so its /proc
// files are its own, and its ambient CAP_SYS_ADMIN makes it able to
// write them. The kernel accepts only the writer's own ids here, so a
// wrong pair, or a process not in a fresh user namespace, fails.
func MapOwnIDs(uid, gid int) error {
	for _, w := range [][2]string{
		{"setgroups", "deny"},
		{"uid_map", fmt.Sprintf("%d %d 1\n", uid, uid)},
		{"gid_map", fmt.Sprintf("%d %d 1\n", gid, gid)},
	} {
		if err := os.WriteFile("/proc/self/"+w[0], []byte(w[1]), 0); err != nil {
			return fmt.Errorf("map the launcher's uid and gid in the new user namespace: %w", err)
		}
	}
	return nil
}

// nsInode is the inode of one of this process's namespaces (net, mnt).
func nsInode(kind string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Stat("/proc/self/ns/"+kind, &st); err != nil {
		return 0, err
	}
	return st.Ino, nil
}

// HostNamespaces returns the caller's net and mnt namespace inodes, for
// Policy.HostNetNS and HostMntNS.
func HostNamespaces() (netns, mntns uint64, err error) {
	if netns, err = nsInode("net"); err != nil {
		return 0, 0, err
	}
	mntns, err = nsInode("mnt")
	return netns, mntns, err
}

// spawnNet is the helper's --spawn argument for a mode's network.
func spawnNet(offline, proxied bool) string {
	switch {
	case proxied:
		return "proxied"
	case offline:
		return "offline"
	}
	return "online"
}
