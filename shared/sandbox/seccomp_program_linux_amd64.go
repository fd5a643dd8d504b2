package sandbox

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// seccompProgram returns program i as seccomprules assembles it, from
// seccompTable: the library that assembles them builds the system call
// tables of every architecture when a program starts: with the assembly,
// about 70 of the 670 page faults of every sandboxed start. The table is
// only data the kernel reads (it copies the program); it cannot go stale
// on its own: TestSeccompTableIsTheLibrarysProgram fails when the rules,
// the library or x/sys change what Program assembles, and rewrites the
// table with DEMIURGE_UPDATE_SECCOMP_TABLE=1.
func seccompProgram(i int) ([]unix.SockFilter, error) {
	if i < 0 || i >= len(seccompTable) {
		return nil, fmt.Errorf("seccomp: no program %d", i)
	}
	return seccompTable[i], nil
}
