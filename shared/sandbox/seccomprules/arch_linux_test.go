package seccomprules

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestTheFilterAdmitsThisMachinesCalls: the program's architecture check
// is the running kernel's own, so a sandboxed command's system calls meet
// the rules and not the ENOSYS of a foreign architecture (with x86_64
// written in, every call of a command on arm64 failed). The kernel's
// machine name is read here, apart from the build's constant.
func TestTheFilterAdmitsThisMachinesCalls(t *testing.T) {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	machine := unix.ByteSliceToString(u.Machine[:])
	want, known := map[string]uint32{
		"x86_64":  unix.AUDIT_ARCH_X86_64,
		"aarch64": unix.AUDIT_ARCH_AARCH64,
	}[machine]
	if !known {
		t.Skipf("no audit architecture known for %s", machine)
	}
	prog, err := Program(Command(false, false))
	if err != nil {
		t.Fatal(err)
	}
	// The prefix: load the architecture, jump over the ENOSYS when equal.
	if len(prog) < 2 || prog[0].K != 4 || prog[1].K != want {
		t.Fatalf("the filter's architecture check is %#x, want %#x (%s): %+v", prog[1].K, want, machine, prog[:2])
	}
}
