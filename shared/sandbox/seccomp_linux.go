package sandbox

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// deniedSyscalls fail with EPERM in every sandbox mode: debugging other
// processes, kernel keyrings, BPF, changing the mount table or
// namespaces, loading modules, io_uring (which would bypass this filter),
// and the rest of what no build or shell command needs. The numbers are
// x86_64's (seccomp_sysnums_linux_amd64.go).
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

// argCond is one test of a system call's argument: Equal compares, else
// any of Value's bits set. Only an argument's low 32 bits are read: the
// arguments tested are ints to the kernel (socket's) or keep every flag
// tested there (clone's), so bits above cannot change what is refused.
type argCond struct {
	Arg   int
	Equal bool
	Value uint32
}

// argRule refuses a system call when all of its conditions hold; a
// call's rules are OR'd.
type argRule struct {
	Syscall string
	Conds   []argCond
}

// argRules are the refusals that depend on arguments: new namespaces
// through clone, packet sockets and MPTCP (which Landlock's TCP rules do
// not see); offline also every AF_INET/AF_INET6 socket that is not plain
// TCP (UDP, raw, ICMP), and netlink. denyUnix refuses AF_UNIX sockets
// too: below Landlock ABI 9 nothing else stops a connect to a pathname
// socket outside the sandbox (a docker or agent socket). socketpair(2)
// stays allowed.
func argRules(m Mode, denyUnix bool) []argRule {
	eq := func(arg int, v uint32) argCond { return argCond{Arg: arg, Equal: true, Value: v} }
	rules := []argRule{
		{"clone", []argCond{{Arg: 0, Value: nsCloneFlags}}},
		{"socket", []argCond{eq(0, unix.AF_PACKET)}},
		{"socket", []argCond{eq(2, ipprotoMPTCP)}},
	}
	if denyUnix {
		rules = append(rules, argRule{"socket", []argCond{eq(0, unix.AF_UNIX)}})
	}
	if m.Offline() {
		for _, af := range []uint32{unix.AF_INET, unix.AF_INET6} {
			// type & 0xf != SOCK_STREAM, written as the bits a
			// non-stream type sets: DGRAM 2, RAW 3, RDM 4, SEQPACKET 5,
			// DCCP 6, PACKET 10 all have a bit of 0xe set.
			rules = append(rules, argRule{"socket", []argCond{eq(0, af), {Arg: 1, Value: sockTypeMask &^ unix.SOCK_STREAM}}})
		}
		rules = append(rules, argRule{"socket", []argCond{eq(0, unix.AF_NETLINK)}})
	}
	return rules
}

// Offsets in struct seccomp_data (little-endian): the low half of an
// argument comes first.
const (
	nrOffset   = 0
	archOffset = 4
	argsOffset = 16
)

// seccompFilter is the program for a mode. It was assembled by
// github.com/elastic/go-seccomp-bpf until that package's initialisation
// (tables of every architecture's system calls) became a tenth of the
// helper's start, paid twice per command (BENCHMARKS §31.2);
// seccomp_test.go runs both programs over the same inputs. Two things
// such a library leaves open are closed first: a system call of another
// architecture (int 0x80 from x86_64) or of the x32 ABI fails with
// ENOSYS; and clone3, whose flags are behind a pointer a filter cannot
// read, fails with ENOSYS so libc falls back to clone.
func seccompFilter(m Mode, denyUnix bool) ([]bpf.Instruction, error) {
	if !seccompNative {
		return nil, errors.New("the seccomp filter is written for x86_64 only")
	}
	retErrno := func(e unix.Errno) bpf.Instruction {
		return bpf.RetConstant{Val: uint32(unix.SECCOMP_RET_ERRNO) | uint32(e)}
	}
	loadNr := bpf.LoadAbsolute{Off: nrOffset, Size: 4}
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: archOffset, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AUDIT_ARCH_X86_64, SkipTrue: 1},
		retErrno(unix.ENOSYS),
		loadNr,
		bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: x32SyscallBit, SkipFalse: 1},
		retErrno(unix.ENOSYS),
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_CLONE3, SkipTrue: 1},
		retErrno(unix.ENOSYS),
	}
	for _, name := range deniedSyscalls {
		nr, ok := sysnum[name]
		if !ok {
			return nil, fmt.Errorf("seccomp: unknown system call %q", name)
		}
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: nr, SkipTrue: 1}, retErrno(unix.EPERM))
	}
	for _, r := range argRules(m, denyUnix) {
		nr, ok := sysnum[r.Syscall]
		if !ok {
			return nil, fmt.Errorf("seccomp: unknown system call %q", r.Syscall)
		}
		// Not this call: skip the rule, its refusal and the reload of
		// the call's number (the argument loads replaced it).
		var rule []bpf.Instruction
		for i, c := range r.Conds {
			rest := uint8(2*(len(r.Conds)-i-1) + 1) // to past this rule's refusal
			rule = append(rule, bpf.LoadAbsolute{Off: uint32(argsOffset + 8*c.Arg), Size: 4})
			if c.Equal {
				rule = append(rule, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: c.Value, SkipTrue: rest})
			} else {
				rule = append(rule, bpf.JumpIf{Cond: bpf.JumpBitsNotSet, Val: c.Value, SkipTrue: rest})
			}
		}
		rule = append(rule, retErrno(unix.EPERM), loadNr)
		prog = append(prog, bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: nr, SkipTrue: uint8(len(rule))})
		prog = append(prog, rule...)
	}
	return append(prog, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW}), nil
}

// x32SyscallBit marks a system call of the x32 ABI.
const x32SyscallBit = 0x40000000

// nsCloneFlags are the clone flags that make new namespaces.
const nsCloneFlags = unix.CLONE_NEWUSER | unix.CLONE_NEWNS | unix.CLONE_NEWNET | unix.CLONE_NEWPID |
	unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME

// applySeccomp loads the filter on the calling thread, the one that
// execs (see applyLandlock).
func applySeccomp(m Mode, s Support) error {
	insns, err := seccompFilter(m, !s.FSResolveUnix)
	if err != nil {
		return err
	}
	raw, err := bpf.Assemble(insns)
	if err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	filters := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filters[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	prog := unix.SockFprog{Len: uint16(len(filters)), Filter: &filters[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); e != 0 {
		return fmt.Errorf("seccomp: load filter: %w", e)
	}
	return nil
}
