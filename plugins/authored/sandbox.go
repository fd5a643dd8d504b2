package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"demiurge.dev/shared/sandbox"
)

// workerSandbox reads the host's sandbox decision for a call. Seed 004:
// authored code runs only under an enforced OS sandbox, so a request with
// no policy fails closed; mode off is the host's explicit word that the
// operator chose --sandbox off. The returned wrap makes a worker start
// through the helper (sandbox.Wrap refuses a mode the kernel cannot
// enforce, so the worker then never starts).
// readable adds what the worker's own program needs to read (the Python
// interpreter's prefix); never a directory holding the home directory,
// which would expose the user's keys.
func workerSandbox(encoded string, readable []string) (wrap func(*exec.Cmd) error, err error) {
	if encoded == "" {
		return nil, errors.New("the host sent no OS sandbox policy, and authored tools run only under one")
	}
	p, err := sandbox.DecodePolicy(encoded)
	if err != nil {
		return nil, fmt.Errorf("the host sent a sandbox policy this runtime cannot read: %w", err)
	}
	if p.Mode == sandbox.Off {
		return func(*exec.Cmd) error { return nil }, nil
	}
	for _, dir := range readable {
		if err := readableDir(dir); err != nil {
			return nil, err
		}
		p.ReadOnly = append(p.ReadOnly, dir)
	}
	if p.Helper == "" {
		return nil, errors.New("the host sent a sandbox policy without the helper's path")
	}
	return func(cmd *exec.Cmd) error {
		if err := sandbox.Wrap(cmd, p.Helper, p); err != nil {
			return fmt.Errorf("sandbox %s: %w", p.Mode, err)
		}
		return nil
	}, nil
}

// readableDir refuses to open a directory that holds the home directory
// (or is /): the sandbox hides home for a reason.
func readableDir(dir string) error {
	if !filepath.IsAbs(dir) {
		return fmt.Errorf("sandbox: %q is not an absolute path", dir)
	}
	home, _ := os.UserHomeDir()
	if home == "" {
		home = os.Getenv("HOME")
	}
	dir = filepath.Clean(dir)
	if dir == "/" || (home != "" && (dir == filepath.Clean(home) || strings.HasPrefix(filepath.Clean(home)+"/", dir+"/"))) {
		return fmt.Errorf("sandbox: the worker would need to read %s, which holds the home directory; install python3 elsewhere", dir)
	}
	return nil
}
