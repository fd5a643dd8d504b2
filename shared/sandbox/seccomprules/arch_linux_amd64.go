package seccomprules

import "golang.org/x/sys/unix"

// nativeArch is the audit architecture of this build's system calls.
const nativeArch = unix.AUDIT_ARCH_X86_64
