package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"

	"demiurge.dev/shared/sandbox"
)

// launchMain makes the test binary a launcher of its own, so that a test
// can start it as an unprivileged user: test.binary -launch HELPER
// POLICY-JSON SCRIPT runs sh -c SCRIPT in the policy's workspace through
// HELPER and exits with the command's status.
func launchMain(args []string) int {
	if len(args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: -launch HELPER POLICY-JSON SCRIPT")
		return 2
	}
	var p sandbox.Policy
	if err := json.Unmarshal([]byte(args[1]), &p); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	cmd := exec.Command("/bin/sh", "-c", args[2])
	cmd.Dir = p.Workspace
	cmd.Env = os.Environ()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = nil, os.Stdout, os.Stderr
	if err := sandbox.Wrap(cmd, args[0], p); err != nil {
		fmt.Fprintln(os.Stderr, "wrap:", err)
		return 2
	}
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	return 0
}

func errorsAs(err error, target **exec.ExitError) bool { return errors.As(err, target) }
