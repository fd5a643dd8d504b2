package core

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// capabilities decodes the core's capability grants. Their names are
// host/policy's to validate; the loader refuses only what is wrong for a
// core to grant at all: a wildcard secret binding, which would hand every
// host secret to any call.
func (d *decoder) capabilities(n *yaml.Node, field string) ([]string, [][2]int, error) {
	grants, items, err := d.strList(n, field, "capability")
	if err != nil {
		return nil, nil, err
	}
	at := make([][2]int, len(items))
	for i, g := range grants {
		at[i] = [2]int{items[i].Line, items[i].Column}
		name, ok := strings.CutPrefix(g, "secret.bind:")
		if !ok {
			continue
		}
		if name == "" || strings.ContainsAny(name, "*?[") {
			return nil, nil, d.errorf(items[i], itemField(field, i), "%q is refused: a core grants secret.bind:<NAME> for one exact secret name, never a wildcard", clip(g))
		}
	}
	return grants, at, nil
}

// CapabilityError is a LoadError for the grant at index i that the host's
// capability check refused, at the line it is written on.
func (c *Core) CapabilityError(i int, err error) *LoadError {
	e := &LoadError{File: c.File, Field: itemField("capabilities", i), Msg: err.Error(), Err: err}
	if i < len(c.CapabilityAt) {
		e.Line, e.Column = c.CapabilityAt[i][0], c.CapabilityAt[i][1]
	}
	return e
}

var approvalActions = []string{"allow", "prompt", "deny"}

// approvals decodes the core's approval rules, "ACTION:TOOL" or
// "ACTION:TOOL:PATTERN". host/approval interprets them; the loader checks
// their shape so that a typo fails here, with its line.
func (d *decoder) approvals(n *yaml.Node, field string) ([]string, error) {
	rules, items, err := d.strList(n, field, "approval rule")
	if err != nil {
		return nil, err
	}
	for i, r := range rules {
		if msg := checkApprovalRule(r); msg != "" {
			return nil, d.errorf(items[i], itemField(field, i), "%s", msg)
		}
	}
	return rules, nil
}

// checkApprovalRule returns what is wrong with rule, or "".
func checkApprovalRule(rule string) string {
	const want = `; want "ACTION:TOOL" or "ACTION:TOOL:PATTERN", e.g. "allow:write_file:docs/**"`
	parts := strings.SplitN(rule, ":", 3)
	if len(parts) < 2 {
		return fmt.Sprintf("approval rule %q names no tool%s", clip(rule), want)
	}
	action, tool := parts[0], parts[1]
	if !slices.Contains(approvalActions, action) {
		return unknownMsg("approval action", action, "valid actions", approvalActions) + want
	}
	if !toolName.MatchString(tool) {
		return fmt.Sprintf("approval rule %q: %q is not a tool name (want 1-64 letters, digits, _ or -; wildcards are not allowed)", clip(rule), clip(tool))
	}
	if len(parts) == 3 && strings.TrimSpace(parts[2]) == "" {
		return fmt.Sprintf("approval rule %q has an empty pattern%s", clip(rule), want)
	}
	return ""
}
