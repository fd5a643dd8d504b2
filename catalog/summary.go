package catalog

import "encoding/json"

// Summary is the entry as plain JSON-able data, for --json output: what the
// tool is, where it came from, and the policy that applies after overrides.
func (e *Entry) Summary() map[string]any {
	subjects := append([]Subject{}, e.Spec.Subjects...)
	diags := append([]Diagnostic{}, e.Diagnostics...)
	m := map[string]any{
		"name":                  e.Spec.Name,
		"description":           e.Spec.Description,
		"provenance":            e.Spec.Provenance,
		"effect":                e.Spec.Effect,
		"precheck":              e.Spec.Precheck,
		"risk":                  e.Effective.Risk.String(),
		"approval_policy":       e.Effective.ApprovalPolicy.String(),
		"capability":            e.Effective.Capability,
		"required_capabilities": append([]string{}, e.RequiredCapabilities...),
		"capabilities":          append([]string{}, e.Effective.Capabilities...),
		"display_policy":        e.Effective.DisplayPolicy,
		"model_output_policy":   e.Effective.ModelOutputPolicy,
		"registry": map[string]any{
			"risk":            e.Spec.Metadata.Risk.String(),
			"approval_policy": e.Spec.Metadata.ApprovalPolicy.String(),
			"capability":      e.Spec.Metadata.Capability,
		},
		"subjects":          subjects,
		"schema":            json.RawMessage(e.Schema.JSON()),
		"strict_compatible": e.StrictCompatible,
		"strict_reasons":    append([]string{}, e.StrictReasons...),
		"diagnostics":       diags,
	}
	if len(e.HostGrants) > 0 { // only an authored tool the operator granted
		m["host_grants"] = append([]HostGrant{}, e.HostGrants...)
	}
	return m
}

// Summary is the whole catalog as JSON-able data: the entries' summaries in
// catalog order, the disabled tools, every diagnostic and the fingerprint.
func (c *Catalog) Summary() map[string]any {
	tools := make([]map[string]any, 0, len(c.entries))
	for _, e := range c.entries {
		tools = append(tools, e.Summary())
	}
	return map[string]any{
		"tools":       tools,
		"disabled":    append([]string{}, c.disabled...),
		"unavailable": append([]Unavailable{}, c.unavailable...),
		"diagnostics": append([]Diagnostic{}, c.Diagnostics()...),
		"fingerprint": c.Fingerprint(),
	}
}
