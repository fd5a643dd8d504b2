package catalog

import (
	"fmt"
	"strings"
)

// applyOverride applies one tools.metadata entry to a tool's registry
// metadata. Overrides may only make policy stricter: risk and approval take
// the stricter value, and an attempt to lower one is refused with a
// warning that names the registry value. A value outside the lattice is an
// error, not a warning: it is a broken core, and security settings fail
// closed.
func applyOverride(tool string, reg Metadata, ov Override) (Metadata, []Diagnostic, error) {
	eff := reg
	eff.Capabilities = append([]string(nil), reg.Capabilities...)
	var diags []Diagnostic
	warn := func(field, msg string) {
		diags = append(diags, Diagnostic{Tool: tool, Field: field, Origin: ov.Origin, Message: msg, Level: LevelWarning})
	}
	field := func(name string) string { return "tools.metadata." + tool + "." + name }
	at := ""
	if ov.Origin != "" {
		at = " at " + ov.Origin
	}

	if ov.Risk != nil {
		r := *ov.Risk
		if r < RiskLow || r > RiskHigh {
			return eff, nil, fmt.Errorf("%s%s: %v is not low, medium or high", field("risk"), at, r)
		}
		if r < reg.Risk {
			warn("risk", fmt.Sprintf("%s: %q would lower the registry risk %q of tool %q; not applied (overrides may only make policy stricter)",
				field("risk"), r, reg.Risk, tool))
		}
		eff.Risk = MaxRisk(reg.Risk, r)
		if r >= reg.Risk {
			eff.LiteralCommandsAuto = false
		}
	}
	if ov.ApprovalPolicy != nil {
		a := *ov.ApprovalPolicy
		if a < ApprovalAuto || a > ApprovalDeny {
			return eff, nil, fmt.Errorf("%s%s: %v is not auto, prompt or deny", field("approval_policy"), at, a)
		}
		if a < reg.ApprovalPolicy {
			warn("approval_policy", fmt.Sprintf("%s: %q would weaken the registry approval policy %q of tool %q; not applied (overrides may only make policy stricter)",
				field("approval_policy"), a, reg.ApprovalPolicy, tool))
		}
		eff.ApprovalPolicy = MaxApproval(reg.ApprovalPolicy, a)
		if a >= reg.ApprovalPolicy {
			eff.LiteralCommandsAuto = false
		}
	}
	if ov.Capability != nil {
		c := *ov.Capability
		switch {
		case c == "":
			warn("capability", fmt.Sprintf("%s: empty; an override can add a required capability, never remove one; ignored", field("capability")))
		case strings.TrimSpace(c) != c || strings.ContainsAny(c, " \t\r\n"):
			return eff, nil, fmt.Errorf("%s%s: %q contains whitespace", field("capability"), at, c)
		case reg.Capability == "":
			eff.Capability = c
		}
	}
	replace := func(name string, v *string, dst *string) {
		switch {
		case v == nil:
		case *v == "":
			warn(name, fmt.Sprintf("%s: empty; ignored", field(name)))
		default:
			*dst = *v
		}
	}
	replace("display_policy", ov.DisplayPolicy, &eff.DisplayPolicy)
	replace("model_output_policy", ov.ModelOutputPolicy, &eff.ModelOutputPolicy)
	return eff, diags, nil
}

// requiredCapabilities is the registry capability plus the override's: an
// override adds a second gate, it never replaces the first.
func requiredCapabilities(registry string, ov Override) []string {
	var caps []string
	if registry != "" {
		caps = append(caps, registry)
	}
	if ov.Capability != nil && *ov.Capability != "" && *ov.Capability != registry {
		caps = append(caps, *ov.Capability)
	}
	return caps
}
