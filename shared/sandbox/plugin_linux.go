package sandbox

import (
	"fmt"
	"os"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// PluginPolicy confines a third-party plugin process (an installed
// package's): it reads what a Go program needs to run and to reach an
// HTTPS API, reads and writes only its own runtime directory, and opens
// no IP socket at all (seccomp): its only way out is the host's egress
// proxy on a unix socket (Egress), which applies the URL policy to every
// connection. No namespaces: the host dials the plugin's unix socket by
// the path it prints, so the plugin sees the host's file system, through
// Landlock.
type PluginPolicy struct {
	// Private is the plugin's runtime directory (its HOME) and Tmp its
	// TMPDIR (where go-plugin's sockets lie: a short path, since a unix
	// socket's path has at most 107 bytes): read and write, both.
	Private, Tmp string
	// Binary is the file the child executes when it runs the installed
	// binary itself (a verified-image record), not a sealed copy: read
	// and execute on that file only.
	Binary string
	// Egress is the directory of the host's egress proxy socket for this
	// plugin: connecting to a unix socket there is granted (Landlock ABI
	// 9; below it nothing refuses it anyway).
	Egress string
	// Toolset confines a toolset plugin the operator installed by path
	// rather than a package's: it also reads and executes the system's
	// programs and libraries (PluginSystemPaths: an interpreter, and what
	// it loads) and reads the Workspace its tools work on.
	Toolset bool
	// Workspace is the toolset plugin's workspace: read, and written when
	// WorkspaceWrite ("" grants none). Hidden are paths that get no right
	// even beneath the workspace (the state directory; the home's
	// configuration when the workspace holds the home): the workspace is
	// then granted around them (workspaceRules).
	Workspace      string
	WorkspaceWrite bool
	Hidden         []string
	// ReadOnly are paths beneath the workspace that stay read-only when
	// it is written, missing ones too (none is made): what a command's
	// sandbox holds there (git's configuration and hooks, which the
	// operator's next git run would execute, the clients' configuration,
	// the core's files, the host's own; host/plugins' toolsetConfinement).
	ReadOnly []string
	// Artifacts is the host's artifact directory (STATE/runtime/artifacts),
	// where a toolset plugin writes a call's bulk output: it may make
	// directories and files there and write them, never list, read or
	// remove anything (other calls' and sessions' artifacts are there).
	Artifacts string
}

// rightsArtifacts: make and write, nothing read, listed or removed.
const rightsArtifacts = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSMakeDir | ll.AccessFSMakeReg)

// PluginSystemPaths are what a toolset plugin installed by path may read
// and execute besides PluginReadPaths: the system's programs and
// libraries (a Python plugin's interpreter and modules). Not /etc, /opt,
// /proc, /sys, any home or the state.
var PluginSystemPaths = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// PluginReadPaths are what a confined plugin may read: shared libraries
// (a cgo resolver), time zones, TLS roots, and the resolver's files.
// Not /proc, /sys, /home, /etc as a whole, the workspace or the state.
var PluginReadPaths = []string{
	"/lib", "/lib32", "/lib64", "/libx32", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32",
	"/usr/share/zoneinfo", "/usr/share/ca-certificates", "/etc/ssl", "/etc/pki", "/etc/ca-certificates",
	"/etc/resolv.conf", "/etc/hosts", "/etc/nsswitch.conf", "/etc/host.conf", "/etc/gai.conf",
	"/etc/services", "/etc/protocols", "/etc/localtime", "/etc/ld.so.cache", "/run/systemd/resolve",
}

// pluginDevices are the device files a confined plugin may open.
var pluginDevices = []string{"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom"}

// PluginMissing names what the kernel lacks to confine a plugin: Landlock
// with TCP rules and signal and abstract-socket scoping (ABI 6), and
// seccomp. Empty means it can.
func PluginMissing(s Support) []string {
	var miss []string
	if s.LandlockABI < 6 {
		why := "landlock ABI >= 6 (file system, TCP connect ports, signal and abstract unix socket scoping)"
		if s.LandlockError != "" {
			why += ": " + s.LandlockError
		} else {
			why += fmt.Sprintf(": this kernel has ABI %d", s.LandlockABI)
		}
		miss = append(miss, why)
	}
	if !s.Seccomp {
		miss = append(miss, "seccomp filters")
	}
	return miss
}

// KernelSupport is what this kernel enforces, without the namespace probe
// (a plugin's confinement uses none).
func KernelSupport() Support { return detectKernel() }

// pluginLandlock builds the ruleset: every file system right of the ABI
// handled, TCP bind and connect handled with no port granted (the seccomp
// filter refuses IP sockets first; this is the second lock), both scopes.
func pluginLandlock(p PluginPolicy, s Support) (c landlock.Config, rules []landlock.Rule, release func(), err error) {
	release = func() {}
	c, err = landlockConfig(s, ReadOnly)
	if err != nil {
		return c, nil, release, err
	}
	c.HandledAccessNet &= landlock.AccessNetSet(ll.AccessNetBindTCP | ll.AccessNetConnectTCP)
	keep := func(r landlock.AccessFSSet) landlock.AccessFSSet { return r & c.HandledAccessFS }
	add := func(r landlock.AccessFSSet, paths ...string) {
		for _, q := range paths {
			fi, err := os.Stat(q)
			if err != nil {
				continue
			}
			if fi.IsDir() {
				rules = append(rules, landlock.PathAccess(keep(r), q))
			} else {
				rules = append(rules, landlock.PathAccess(keep(r)&rightsFile, q))
			}
		}
	}
	add(rightsRead, PluginReadPaths...)
	add(rightsDevice, pluginDevices...)
	if p.Toolset {
		add(rightsRead, PluginSystemPaths...)
	}
	for _, d := range []string{p.Private, p.Tmp} {
		if d == "" || !strings.HasPrefix(d, "/") {
			return c, nil, release, fmt.Errorf("a confined plugin needs an absolute private directory and temporary directory")
		}
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() {
			return c, nil, release, fmt.Errorf("the plugin's private directory %s: not a directory", d)
		}
		rules = append(rules, landlock.PathAccess(keep(rightsRead|rightsWrite|landlock.AccessFSSet(ll.AccessFSResolveUnix)), d))
	}
	if p.Binary != "" {
		rules = append(rules, landlock.PathAccess(keep(landlock.AccessFSSet(ll.AccessFSExecute|ll.AccessFSReadFile)), p.Binary))
	}
	if p.Egress != "" {
		rules = append(rules, landlock.PathAccess(keep(landlock.AccessFSSet(ll.AccessFSResolveUnix)), p.Egress))
	}
	if p.Toolset && p.Artifacts != "" {
		if fi, err := os.Lstat(p.Artifacts); err != nil || !fi.IsDir() {
			return c, nil, release, fmt.Errorf("the artifact directory %s: not a directory", p.Artifacts)
		}
		rules = append(rules, landlock.PathAccess(keep(rightsArtifacts), p.Artifacts))
	}
	if p.Toolset && p.Workspace != "" {
		ws := rightsRead
		if p.WorkspaceWrite {
			ws |= rightsWrite
		}
		var wr []landlock.Rule
		var ro []string
		if p.WorkspaceWrite {
			ro = p.ReadOnly
		}
		wr, release, err = workspaceRules(p.Workspace, p.Hidden, ro, keep(ws), keep(rightsRead), keep(rightsListDir))
		if err != nil {
			return c, nil, release, err
		}
		rules = append(rules, wr...)
	}
	return c, rules, release, nil
}

// pluginSeccomp loads a package plugin's filter (seccomprules.Plugin:
// every AF_INET, AF_INET6 and netlink socket refused, AF_UNIX allowed).
func pluginSeccomp() error { return loadSeccomp(filterPlugin) }

// ConfinePluginThread restricts the calling thread for good: no_new_privs,
// the plugin's Landlock domain, the seccomp filter. The caller holds the
// thread locked (runtime.LockOSThread), starts the plugin from it and
// lets the thread end with its goroutine, never unlocked: the child
// inherits the thread's domain and filter, and nothing else in the
// process runs on that thread (the Go runtime starts no thread from a
// locked one).
func ConfinePluginThread(p PluginPolicy, s Support) error {
	if miss := PluginMissing(s); len(miss) > 0 {
		return fmt.Errorf("the kernel lacks %s", strings.Join(miss, ", "))
	}
	c, rules, release, err := pluginLandlock(p, s)
	defer release()
	if err != nil {
		return err
	}
	if err := restrictSelf(c, rules); err != nil {
		return err
	}
	return pluginSeccomp()
}
