//go:build !unix

package core

import "os"

// openNonBlocking opens path for reading; other systems have no FIFOs that
// block an open.
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
