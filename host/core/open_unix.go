//go:build unix

package core

import (
	"os"
	"syscall"
)

// openNonBlocking opens path for reading; O_NONBLOCK keeps a FIFO from
// blocking the open until a writer appears.
func openNonBlocking(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
