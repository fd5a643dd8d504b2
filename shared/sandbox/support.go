package sandbox

import (
	"fmt"
	"strings"
)

// Support is what this kernel can enforce, as detected.
type Support struct {
	// LandlockABI is the kernel's Landlock ABI version (0: none).
	LandlockABI int `json:"landlock_abi"`
	// LandlockError says why Landlock is unavailable, when it is.
	LandlockError string `json:"landlock_error,omitempty"`
	// The Landlock rights this ABI handles.
	FSRead            bool `json:"fs_read"`
	FSWrite           bool `json:"fs_write"`
	FSTruncate        bool `json:"fs_truncate"`
	FSIoctlDev        bool `json:"fs_ioctl_dev"`
	FSResolveUnix     bool `json:"fs_resolve_unix"`
	TCPBind           bool `json:"tcp_bind"`
	TCPConnect        bool `json:"tcp_connect"`
	UDP               bool `json:"udp"`
	ScopeAbstractUnix bool `json:"scope_abstract_unix"`
	ScopeSignal       bool `json:"scope_signal"`
	// Seccomp is seccomp filter mode.
	Seccomp bool `json:"seccomp"`
	// UserNS, MountNS, NetNS: an unprivileged process could create them
	// (probed by starting a process in them).
	UserNS  bool   `json:"user_ns"`
	MountNS bool   `json:"mount_ns"`
	NetNS   bool   `json:"net_ns"`
	NSError string `json:"ns_error,omitempty"`
	// Forced is set when a test build pretends the kernel lacks Landlock.
	Forced string `json:"forced,omitempty"`
}

// fromABI fills the Landlock rights an ABI version handles.
func (s *Support) fromABI(abi int) {
	s.LandlockABI = abi
	s.FSRead = abi >= 1
	s.FSWrite = abi >= 1
	s.FSTruncate = abi >= 3
	s.TCPBind = abi >= 4
	s.TCPConnect = abi >= 4
	s.FSIoctlDev = abi >= 5
	s.ScopeAbstractUnix = abi >= 6
	s.ScopeSignal = abi >= 6
	s.FSResolveUnix = abi >= 9
	s.UDP = abi >= 10
}

// Missing names what the kernel lacks to enforce mode m; empty means the
// mode is enforced in full. Off needs nothing.
func (s Support) Missing(m Mode) []string {
	if m == Off {
		return nil
	}
	var miss []string
	need := func(ok bool, what string) {
		if !ok {
			miss = append(miss, what)
		}
	}
	need(s.FSRead && s.FSWrite, "landlock filesystem rules (ABI >= 1)")
	need(s.FSTruncate, "landlock truncate right (ABI >= 3)")
	need(s.FSIoctlDev, "landlock ioctl_dev right (ABI >= 5)")
	need(s.ScopeSignal, "landlock signal scoping (ABI >= 6)")
	need(s.Seccomp, "seccomp filters")
	// The read-only protected paths and the hidden
	// sensitive files are mounts in a mount namespace owned by a new user
	// namespace: no root needed, but no substitute either.
	need(s.UserNS && s.MountNS, "unprivileged user and mount namespaces")
	if m.Offline() {
		// Offline holds with a private network namespace, or with
		// Landlock TCP rules plus the seccomp socket filter (which
		// refuses UDP and raw sockets) and abstract-socket scoping.
		if !s.NetNS {
			need(s.TCPConnect && s.TCPBind, "landlock TCP rules (ABI >= 4) or a network namespace")
			need(s.ScopeAbstractUnix, "landlock abstract unix socket scoping (ABI >= 6) or a network namespace")
		}
	}
	if m == Network {
		// Network mode reaches out only through the host's egress proxy,
		// from a network namespace of its own.
		need(s.NetNS, "unprivileged network namespaces (network mode runs in one, behind the egress proxy)")
	}
	return miss
}

// Enforced returns the mode that is actually enforced when m is asked
// for: m itself, or "" with the reason when the kernel lacks something.
func (s Support) Enforced(m Mode) (Mode, error) {
	if miss := s.Missing(m); len(miss) > 0 {
		return "", fmt.Errorf("sandbox mode %s cannot be enforced: the kernel lacks %s", m, strings.Join(miss, ", "))
	}
	return m, nil
}

// Rules lists, for reports, which kinds of rules are enforced.
func (s Support) Rules() map[string]bool {
	return map[string]bool{
		"fs.read": s.FSRead, "fs.write": s.FSWrite, "fs.truncate": s.FSTruncate,
		"fs.ioctl_dev": s.FSIoctlDev, "fs.resolve_unix": s.FSResolveUnix,
		"net.tcp_bind": s.TCPBind, "net.tcp_connect": s.TCPConnect, "net.udp": s.UDP,
		"scope.abstract_unix_socket": s.ScopeAbstractUnix, "scope.signal": s.ScopeSignal,
	}
}
