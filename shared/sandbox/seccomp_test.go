//go:build linux && amd64

package sandbox

import (
	"encoding/binary"
	"testing"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// libraryDenied is the denied list as it stood when the library built the
// filter (a name dropped from deniedSyscalls must fail the test).
var libraryDenied = []string{
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

// libraryFilter is the filter as github.com/elastic/go-seccomp-bpf
// assembled it before the helper wrote its own (the same policy, the same
// two rules in front).
func libraryFilter(t *testing.T, m Mode, denyUnix bool) []bpf.Instruction {
	t.Helper()
	var conditional []seccomp.NameWithConditions
	for _, r := range argRules(m, denyUnix) {
		var cs seccomp.ArgumentConditions
		for _, c := range r.Conds {
			op := seccomp.BitsSet
			if c.Equal {
				op = seccomp.Equal
			}
			cs = append(cs, seccomp.Condition{Argument: uint32(c.Arg), Operation: op, Value: uint64(c.Value)})
		}
		conditional = append(conditional, seccomp.NameWithConditions{Name: r.Syscall, Conditions: cs})
	}
	pol := seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{Action: seccomp.ActionErrno, Names: libraryDenied},
			{Action: seccomp.ActionErrno, NamesWithCondtions: conditional},
		},
	}
	body, err := pol.Assemble()
	if err != nil {
		t.Fatal(err)
	}
	retErrno := func(e unix.Errno) bpf.Instruction {
		return bpf.RetConstant{Val: uint32(unix.SECCOMP_RET_ERRNO) | uint32(e)}
	}
	return append([]bpf.Instruction{
		bpf.LoadAbsolute{Off: archOffset, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: unix.AUDIT_ARCH_X86_64, SkipTrue: 1},
		retErrno(unix.ENOSYS),
		bpf.LoadAbsolute{Off: nrOffset, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpNotEqual, Val: unix.SYS_CLONE3, SkipTrue: 1},
		retErrno(unix.ENOSYS),
	}, body...)
}

// seccompData is struct seccomp_data for a call, as x/net/bpf's VM
// reads it: the VM loads words big-endian, the kernel in the host's
// order, so each 32-bit word is written big-endian at the offset where
// x86_64 keeps it (an argument's low half first).
func seccompData(arch, nr uint32, args [6]uint64) []byte {
	b := make([]byte, 64)
	binary.BigEndian.PutUint32(b[nrOffset:], nr)
	binary.BigEndian.PutUint32(b[archOffset:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(b[argsOffset+8*i:], uint32(a))
		binary.BigEndian.PutUint32(b[argsOffset+8*i+4:], uint32(a>>32))
	}
	return b
}

func runFilter(t *testing.T, vm *bpf.VM, data []byte) uint32 {
	t.Helper()
	v, err := vm.Run(data)
	if err != nil {
		t.Fatal(err)
	}
	return uint32(v)
}

// TestSeccompFilterAgreesWithTheLibrary: the helper's own filter gives
// the answer the library's gave for every x86_64 system call number with
// every argument value the rules test (and their neighbours, other
// flags, high halves), in every mode, with and without the AF_UNIX rule;
// and it refuses what it refuses with EPERM, so an agreement on
// "allow everything" cannot pass.
func TestSeccompFilterAgreesWithTheLibrary(t *testing.T) {
	values := []uint64{0, 1, 2, 3, 5, 6, 10, 16, 17, unix.AF_PACKET, unix.AF_NETLINK, unix.AF_INET6, ipprotoMPTCP,
		unix.SOCK_STREAM | unix.SOCK_CLOEXEC, unix.SOCK_DGRAM | unix.SOCK_NONBLOCK, unix.SOCK_RAW, unix.SOCK_SEQPACKET,
		unix.CLONE_NEWUSER, unix.CLONE_NEWNET | unix.CLONE_VM, unix.CLONE_NEWTIME, unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_THREAD, 0xffffffff}
	refused := uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.EPERM)
	for _, m := range []Mode{ReadOnly, WorkspaceWrite, Network} {
		for _, denyUnix := range []bool{false, true} {
			ours, err := seccompFilter(m, denyUnix)
			if err != nil {
				t.Fatal(err)
			}
			vmOurs, err := bpf.NewVM(ours)
			if err != nil {
				t.Fatal(err)
			}
			vmLib, err := bpf.NewVM(libraryFilter(t, m, denyUnix))
			if err != nil {
				t.Fatal(err)
			}
			refusals := 0
			check := func(arch, nr uint32, args [6]uint64) {
				d := seccompData(arch, nr, args)
				got, want := runFilter(t, vmOurs, d), runFilter(t, vmLib, d)
				if nr >= x32SyscallBit && arch == unix.AUDIT_ARCH_X86_64 {
					want = uint32(unix.SECCOMP_RET_ERRNO) | uint32(unix.ENOSYS) // the library's own x32 rule
				}
				if got != want {
					t.Fatalf("mode %s denyUnix %v: arch %#x nr %d args %v: %#x, the library %#x", m, denyUnix, arch, nr, args, got, want)
				}
				if got == refused {
					refusals++
				}
			}
			for nr := uint32(0); nr < 512; nr++ {
				check(unix.AUDIT_ARCH_X86_64, nr, [6]uint64{})
			}
			for _, nr := range []uint32{unix.SYS_SOCKET, unix.SYS_CLONE, unix.SYS_CLONE3, unix.SYS_READ} {
				for _, a := range values {
					for _, b := range values {
						for _, c := range []uint64{0, unix.IPPROTO_TCP, unix.IPPROTO_UDP, ipprotoMPTCP} {
							check(unix.AUDIT_ARCH_X86_64, nr, [6]uint64{a, b, c})
						}
					}
				}
			}
			for _, nr := range []uint32{x32SyscallBit, x32SyscallBit + unix.SYS_KEYCTL} {
				check(unix.AUDIT_ARCH_X86_64, nr, [6]uint64{})
			}
			check(unix.AUDIT_ARCH_I386, 288, [6]uint64{}) // keyctl through int 0x80
			if refusals < len(deniedSyscalls) {
				t.Fatalf("mode %s: only %d refusals", m, refusals)
			}
		}
	}
}

// TestSeccompFilterReadsOnlyTheLowHalf: a socket(2) domain of
// AF_PACKET with high bits set is still AF_PACKET to the kernel (an int);
// the library let it through, the helper's filter refuses it.
func TestSeccompFilterReadsOnlyTheLowHalf(t *testing.T) {
	ours, err := seccompFilter(ReadOnly, false)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := bpf.NewVM(ours)
	if err != nil {
		t.Fatal(err)
	}
	if got := runFilter(t, vm, seccompData(unix.AUDIT_ARCH_X86_64, unix.SYS_SOCKET, [6]uint64{1<<32 | unix.AF_PACKET})); got != uint32(unix.SECCOMP_RET_ERRNO)|uint32(unix.EPERM) {
		t.Fatalf("AF_PACKET with high bits: %#x", got)
	}
}
