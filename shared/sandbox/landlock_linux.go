package sandbox

import (
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Rights, spelled out so that a newer go-landlock cannot widen them.
const (
	rightsRead  = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir)
	rightsWrite = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSRemoveDir | ll.AccessFSRemoveFile |
		ll.AccessFSMakeDir | ll.AccessFSMakeReg | ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeSym |
		ll.AccessFSRefer | ll.AccessFSTruncate)
	rightsFile   = landlock.AccessFSSet(ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev)
	rightsDevice = landlock.AccessFSSet(ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSIoctlDev | ll.AccessFSTruncate)
	// rightsListDir lists a directory and opens nothing beneath it.
	rightsListDir = landlock.AccessFSSet(ll.AccessFSReadDir)
)

// landlockConfig handles every right this kernel's ABI knows (strictly:
// never go-landlock's best-effort mode, which would silently do less),
// minus the TCP rights when the mode grants the network.
func landlockConfig(s Support, m Mode) (landlock.Config, error) {
	presets := []landlock.Config{{}, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}
	abi := s.LandlockABI
	if abi < 1 {
		return landlock.Config{}, fmt.Errorf("no landlock")
	}
	if abi >= len(presets) {
		abi = len(presets) - 1
	}
	c := presets[abi]
	if !m.Offline() {
		c.HandledAccessNet = 0 // outbound TCP and UDP allowed
	}
	return c, nil
}

// landlockRules grants: the system read paths, the workspace (read, and
// write in the write modes), the private tmp dir, the extra read-only and
// writable paths, and the usual device files. Everything else, the home
// directory included, is neither readable nor writable.
func landlockRules(p Policy, c landlock.Config) []landlock.Rule {
	keep := func(r landlock.AccessFSSet) landlock.AccessFSSet { return r & c.HandledAccessFS }
	var rules []landlock.Rule
	add := func(r landlock.AccessFSSet, paths ...string) {
		var have []string
		for _, q := range paths {
			fi, err := os.Stat(q)
			if err != nil {
				continue // a missing path grants nothing
			}
			if fi.IsDir() {
				have = append(have, q)
			} else {
				rules = append(rules, landlock.PathAccess(keep(r)&rightsFile, q))
			}
		}
		if len(have) > 0 {
			rules = append(rules, landlock.PathAccess(keep(r), have...))
		}
	}
	add(rightsRead, SystemReadPaths...)
	add(rightsRead, p.ReadOnly...)
	// /dev may be listed, and only the usual devices opened: read on the
	// whole of it let a command running as root read every block device
	// (a loop-mounted image, a zram swap) from a read-only, offline
	// sandbox (TestADeviceBeyondTheUsualIsNotReadable).
	add(rightsListDir, "/dev")
	add(rightsDevice, deviceRWPaths...)
	ws := rightsRead
	if p.Mode.WritesWorkspace() {
		ws |= rightsWrite
	}
	add(ws, p.Workspace)
	add(rightsRead|rightsWrite, p.TmpDir)
	if p.Mode.WritesWorkspace() {
		add(rightsRead|rightsWrite, p.Writable...)
	} else {
		add(rightsRead, p.Writable...)
	}
	return rules
}

// applyLandlock restricts the calling thread for good; the caller holds
// it locked and execs from it, and execve gives the new program this
// thread's domain. (Restricting every thread of the helper, as
// Config.Restrict does below ABI 8, stops the world several times and
// cost tens of milliseconds per command on a busy machine.) The config is
// strict: NewRulesetFD fails rather than do less than asked.
func applyLandlock(p Policy, s Support) error {
	c, err := landlockConfig(s, p.Mode)
	if err != nil {
		return err
	}
	return restrictSelf(c, landlockRules(p, c))
}

// restrictSelf takes no_new_privs and the Landlock domain of c and rules
// for the calling thread (and what it starts afterwards).
func restrictSelf(c landlock.Config, rules []landlock.Rule) error {
	fd, flags, err := c.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	if fd < 0 {
		return fmt.Errorf("landlock: nothing to restrict for %v", c)
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(fd, flags); err != nil {
		return fmt.Errorf("landlock: restrict: %w", err)
	}
	return nil
}
