package main

import (
	"errors"
	"fmt"
	"os/exec"

	"demiurge.dev/shared/sandbox"
)

// workerSandbox reads the host's sandbox decision for a call. Seed 004:
// authored code runs only under an enforced OS sandbox, so a request with
// no policy fails closed; mode off is the host's explicit word that the
// operator chose --sandbox off. The returned wrap makes a worker start
// through the helper (sandbox.Wrap refuses a mode the kernel cannot
// enforce, so the worker then never starts).
func workerSandbox(encoded string) (wrap func(*exec.Cmd) error, err error) {
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
