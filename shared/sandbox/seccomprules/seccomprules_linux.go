package seccomprules

import (
	"fmt"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls fail with EPERM in every sandbox mode: debugging other
// processes, kernel keyrings, BPF, changing the mount table or
// namespaces, loading modules, io_uring (which would bypass this filter),
// and the rest of what no build or shell command needs.
var deniedSyscalls = []string{
	"ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
	"keyctl", "add_key", "request_key",
	"bpf", "perf_event_open", "userfaultfd",
	"mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
	"unshare", "setns",
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	"io_uring_setup", "io_uring_enter", "io_uring_register",
	"open_by_handle_at", "name_to_handle_at",
	"swapon", "swapoff", "reboot", "acct", "quotactl", "syslog", "settimeofday", "clock_settime", "adjtimex",
	"iopl", "ioperm", "personality", "lookup_dcookie", "vhangup",
}

// Socket argument values (x/sys names them, the filter needs numbers).
const (
	sockTypeMask = 0xf // SOCK_NONBLOCK and SOCK_CLOEXEC live above it
	ipprotoMPTCP = 262
)

// Command builds the filter of a sandboxed command: always the denied
// list, new namespaces through clone, packet sockets and MPTCP (which
// Landlock's TCP rules do not see); offline also every AF_INET/AF_INET6
// socket that is not plain TCP (UDP, raw, ICMP), and netlink. denyUnix
// refuses AF_UNIX sockets too: below Landlock ABI 9 nothing else stops a
// connect to a pathname socket outside the sandbox (a docker or agent
// socket). socketpair(2) stays allowed.
func Command(offline, denyUnix bool) seccomp.Policy {
	eq := func(arg uint32, v uint64) seccomp.Condition {
		return seccomp.Condition{Argument: arg, Operation: seccomp.Equal, Value: v}
	}
	socketRules := []seccomp.ArgumentConditions{
		{eq(0, unix.AF_PACKET)},
		{eq(2, ipprotoMPTCP)},
	}
	if denyUnix {
		socketRules = append(socketRules, seccomp.ArgumentConditions{eq(0, unix.AF_UNIX)})
	}
	if offline {
		for _, af := range []uint64{unix.AF_INET, unix.AF_INET6} {
			// type & 0xf != SOCK_STREAM, written as the bits a
			// non-stream type sets: DGRAM 2, RAW 3, RDM 4, SEQPACKET 5,
			// DCCP 6, PACKET 10 all have a bit of 0xe set.
			socketRules = append(socketRules, seccomp.ArgumentConditions{eq(0, af), {Argument: 1, Operation: seccomp.BitsSet, Value: sockTypeMask &^ unix.SOCK_STREAM}})
		}
		socketRules = append(socketRules, seccomp.ArgumentConditions{eq(0, unix.AF_NETLINK)})
	}
	// Entries of one name are OR'd; the conditions of one entry AND'd.
	conditional := []seccomp.NameWithConditions{
		{Name: "clone", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.BitsSet, Value: nsCloneFlags}}},
	}
	for _, c := range socketRules {
		conditional = append(conditional, seccomp.NameWithConditions{Name: "socket", Conditions: c})
	}
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: seccomp.ActionErrno, Names: deniedSyscalls},
			{Action: seccomp.ActionErrno, NamesWithCondtions: conditional},
		},
	}
}

// nsCloneFlags are the clone flags that make new namespaces.
const nsCloneFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWNET | unix.CLONE_NEWPID |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

// Plugin is a package plugin's filter: the command filter of network
// mode (ptrace, other processes' memory, keyrings, BPF, mounts, new
// namespaces, packet sockets refused) with AF_UNIX allowed (go-plugin
// serves on a unix socket, and the egress proxy is one) and every
// AF_INET, AF_INET6 and netlink socket refused: Landlock's TCP rules name
// ports, never addresses, so a plugin allowed 443 reached the host's
// loopback, a LAN router and a metadata endpoint on a private address;
// UDP it did not see.
func Plugin() seccomp.Policy {
	pol := Command(false, false)
	for _, af := range []uint64{unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK} {
		pol.Syscalls[1].NamesWithCondtions = append(pol.Syscalls[1].NamesWithCondtions, seccomp.NameWithConditions{
			Name: "socket", Conditions: seccomp.ArgumentConditions{{Argument: 0, Operation: seccomp.Equal, Value: af}},
		})
	}
	return pol
}

// Program assembles pol behind a prefix that closes two things the
// library leaves open: a system call of another architecture than this
// build's (int 0x80 from x86_64) would meet the library's default action, so it fails with
// ENOSYS first; and clone3, whose flags are behind a pointer a filter
// cannot read, fails with ENOSYS so libc falls back to clone.
func Program(pol seccomp.Policy) ([]unix.SockFilter, error) {
	body, err := pol.Assemble()
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	const archOffset, nrOffset = 4, 0
	retErrno := func(e unix.Errno) bpf.Instruction {
		return bpf.RetConstant{Val: uint32(unix.SECCOMP_RET_ERRNO) | uint32(e)}
	}
	prefix := []bpf.Instruction{
		bpf.LoadAbsolute{Off: archOffset, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: nativeArch, SkipTrue: 1},
		retErrno(unix.ENOSYS),
		bpf.LoadAbsolute{Off: nrOffset, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_CLONE3, SkipTrue: 1},
		retErrno(unix.ENOSYS),
	}
	raw, err := bpf.Assemble(append(prefix, body...))
	if err != nil {
		return nil, fmt.Errorf("seccomp: %w", err)
	}
	filters := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filters[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return filters, nil
}
