package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// execHost replaces this process with the full host, keeping the
// arguments (argv[0] too, so that help and messages name "demiurge"), the
// environment and the standard streams. It returns only on failure.
func execHost(host string, argv, env []string) error {
	err := syscall.Exec(host, argv, env)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("the full host %s is missing beside the launcher: run `make build` (it builds both)", host)
	}
	if _, statErr := os.Stat(host); statErr != nil {
		return fmt.Errorf("the full host %s cannot be run: %w; run `make build`", host, statErr)
	}
	return fmt.Errorf("cannot run the full host %s: %w", host, err)
}
