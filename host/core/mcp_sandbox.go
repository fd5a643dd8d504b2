package core

import (
	"demiurge.dev/shared/sandbox"

	"go.yaml.in/yaml/v3"
)

// mcpSandbox reads a manifest's `sandbox:` key: the OS sandbox mode a
// stdio server starts under. Off is the operator's (--sandbox off), never
// a manifest's.
func (d *decoder) mcpSandbox(n *yaml.Node, field string) (string, error) {
	v, err := d.str(n, field)
	if err != nil {
		return "", err
	}
	m, perr := sandbox.ParseMode(v)
	switch {
	case perr != nil:
		return "", d.errorf(n, field, "sandbox mode %q is not one of read-only, workspace-write, network", clip(v))
	case m == sandbox.Off:
		return "", d.errorf(n, field, "sandbox: off is the operator's choice (--sandbox off), not a manifest's; leave the key out to run the server unsandboxed")
	}
	return string(m), nil
}
