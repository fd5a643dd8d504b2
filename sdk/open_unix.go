//go:build unix

package sdk

import "syscall"

// openNonBlock keeps an open of a FIFO from waiting for a writer.
const openNonBlock = syscall.O_NONBLOCK
