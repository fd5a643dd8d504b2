package core

import (
	"go.yaml.in/yaml/v3"

	"demiurge.dev/host/egress"
)

// sandboxKeys are the keys of agent.yaml's `sandbox:` mapping.
var sandboxKeys = []string{"mode", "require", "network_allow"}

// sandboxModes a core may choose: off is the operator's (--sandbox off).
var sandboxModes = []string{"read-only", "workspace-write", "network"}

// sandbox decodes `sandbox: {mode: M, require: B}`.
func (d *decoder) sandbox(n *yaml.Node, field string, c *Core) (mode string, require bool, err error) {
	entries, err := d.mapping(n, field)
	if err != nil {
		return "", false, err
	}
	for _, e := range entries {
		switch e.name {
		case "mode":
			mode, err = d.str(e.val, e.field)
			if err == nil && !contains(sandboxModes, mode) {
				msg := unknownMsg("sandbox mode", mode, "valid modes", sandboxModes)
				if mode == "off" {
					msg = "off is the operator's choice (demiurge --sandbox off), not a core's; valid modes: read-only, workspace-write, network"
				}
				err = d.errorf(e.val, e.field, "%s", msg)
			}
		case "require":
			require, err = d.boolean(e.val, e.field)
		case "network_allow":
			c.SandboxNetworkAllow, err = d.networkAllow(e.val, e.field)
		default:
			err = d.errorf(e.key, e.field, "%s", unknownMsg("key", e.name, "valid keys", sandboxKeys))
		}
		if err != nil {
			return "", false, err
		}
	}
	return mode, require, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// networkAllow decodes sandbox.network_allow: the core's domain allowlist
// for network-mode commands (host, *.domain, host:port). It can only
// narrow what the operator allows: a target must pass both lists.
func (d *decoder) networkAllow(n *yaml.Node, field string) ([]egress.Rule, error) {
	items, nodes, err := d.strList(n, field, "allowlist entry")
	if err != nil {
		return nil, err
	}
	out := make([]egress.Rule, 0, len(items))
	for i, s := range items {
		r, err := egress.ParseRule(s)
		if err != nil {
			return nil, d.errorf(nodes[i], itemField(field, i), "%v", err)
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, d.errorf(n, field, "an empty list would mean no narrowing; remove the key, or name at least one host")
	}
	return out, nil
}
