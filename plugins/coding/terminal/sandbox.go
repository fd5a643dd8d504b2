package terminal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"demiurge.dev/shared/sandbox"
)

// sandboxed is the OS sandbox one command starts under, or none.
type sandboxed struct {
	policy *sandbox.Policy
	helper string
}

func sandboxOf(req Request) sandboxed {
	if req.Sandbox == nil {
		return sandboxed{helper: req.SandboxHelper}
	}
	// The command starts in its pinned directory by descriptor; the
	// helper moves to it by path inside its namespace and checks it is
	// the same one (see sandbox.reanchorCwd).
	p := *req.Sandbox
	p.Cwd = req.Dir
	return sandboxed{policy: &p, helper: req.SandboxHelper}
}

// mode is the mode enforced for the command, for its result.
func (s sandboxed) mode() string {
	if s.policy == nil {
		return string(sandbox.Off)
	}
	return string(s.policy.Mode)
}

// wrap makes cmd start through the sandbox helper: argv becomes [helper,
// --policy, JSON, --, shell, -c, command] in new namespaces. When the
// policy cannot be enforced the command does not start.
func (s sandboxed) wrap(cmd *exec.Cmd) error {
	if s.policy == nil {
		return nil
	}
	if err := sandbox.Wrap(cmd, s.helper, *s.policy); err != nil {
		return fmt.Errorf("sandbox %s: %w", s.policy.Mode, err)
	}
	return nil
}

// HelperBeside is the sandbox helper in the directory of the running
// executable (make build puts it beside the plugins), or "".
func HelperBeside() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	p := filepath.Join(filepath.Dir(exe), "demiurge-sandbox")
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return p
}
