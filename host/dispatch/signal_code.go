package dispatch

import "syscall"

// signalReturnCode is the shell's exit status for a process a signal
// ended, 128 plus the signal's number (143 for TERM, 137 for KILL), from
// the name the terminal reports (Go's signal names: "terminated"); false
// for a name it does not know.
func signalReturnCode(name string) (int, bool) {
	for n := 1; n < 65; n++ {
		if syscall.Signal(n).String() == name {
			return 128 + n, true
		}
	}
	return 0, false
}
