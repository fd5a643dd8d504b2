package toolhost

import (
	"fmt"

	"demiurge.dev/catalog"
	"demiurge.dev/host/plugins"
	"demiurge.dev/shared/toolsetv1"
)

var effects = map[toolsetv1.Effect]catalog.Effect{
	toolsetv1.Effect_EFFECT_READ: catalog.EffectRead, toolsetv1.Effect_EFFECT_WRITE: catalog.EffectWrite,
	toolsetv1.Effect_EFFECT_EXEC: catalog.EffectExec, toolsetv1.Effect_EFFECT_NETWORK: catalog.EffectNetwork,
	toolsetv1.Effect_EFFECT_CONTROL: catalog.EffectControl,
}

// pluginSource turns a plugin's Describe answer into a catalog source with
// host-defined metadata. A field the host cannot read fails closed: an
// unknown risk is high, an unknown approval policy is deny, an unknown
// effect is exec.
func pluginSource(c plugins.Candidate, d plugins.Description, binding any) (catalog.Source, []string) {
	builtin := c.Origin == plugins.OriginBuiltin
	// Only a plugin that came with the host is builtin; anything else
	// (installed under the state directory, from a package) says so.
	kind := catalog.SourceInstalled
	if builtin {
		kind = catalog.SourceBuiltin
	}
	src := catalog.Source{Kind: kind, Name: c.Name, Binding: binding}
	var warnings []string
	// What the plugin left out (a broken tool.yaml), said once per catalog.
	for _, p := range d.GetProblems() {
		warnings = append(warnings, fmt.Sprintf("%s: left out: %s", c.Name, p))
	}
	for _, t := range d.GetTools() {
		m := t.GetMetadata()
		claim := catalog.Metadata{
			Capability: m.GetCapability(), DisplayPolicy: m.GetDisplayPolicy(),
			ModelOutputPolicy: m.GetModelOutputPolicy(), Capabilities: m.GetCapabilities(),
		}
		// A policy value the host does not know is the default, said once.
		if err := catalog.CheckDisplayPolicy(claim.DisplayPolicy); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s/%s: %v; taken as summary", c.Name, t.GetName(), err))
			claim.DisplayPolicy = catalog.CardSummary
		}
		if err := catalog.CheckModelOutputPolicy(claim.ModelOutputPolicy); err != nil {
			warnings = append(warnings, fmt.Sprintf("%s/%s: %v; taken as content", c.Name, t.GetName(), err))
			claim.ModelOutputPolicy = catalog.ModelContent
		}
		var claimed claimedFields
		if s := m.GetRisk(); s != "" {
			r, err := catalog.ParseRisk(s)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s/%s: %v; taken as high", c.Name, t.GetName(), err))
			}
			claim.Risk, claimed.risk = r, true
		}
		if s := m.GetApprovalPolicy(); s != "" {
			a, err := catalog.ParseApprovalPolicy(s)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("%s/%s: %v; taken as deny", c.Name, t.GetName(), err))
			}
			claim.ApprovalPolicy, claimed.approval = a, true
		}
		effect, ok := effects[t.GetEffect()]
		if !ok {
			effect = catalog.EffectExec
			warnings = append(warnings, fmt.Sprintf("%s/%s declares no effect; taken as exec", c.Name, t.GetName()))
		}
		spec := catalog.ToolSpec{
			Name: t.GetName(), Description: t.GetDescription(), InputSchema: t.GetInputSchema(),
			Metadata: registryMetadata(c.Name, builtin, t.GetName(), claim, claimed),
			Effect:   effect, Subjects: subjects(t.GetSubjects()), Precheck: t.GetHasPrecheck(),
			HostServices: t.GetHostServices(), ApprovalPreview: t.GetApprovalPreview(),
			Provenance: catalog.Provenance{
				Kind: kind, Toolset: c.Name,
				Plugin: plugins.BinaryPrefix + c.Name, Version: d.GetVersion(), Path: c.Path,
			},
		}
		src.Tools = append(src.Tools, spec)
	}
	return src, warnings
}

func subjects(in []*toolsetv1.Subject) []catalog.Subject {
	var out []catalog.Subject
	for _, s := range in {
		switch k := s.GetKind().(type) {
		case *toolsetv1.Subject_Path:
			access := catalog.AccessRead
			if k.Path.GetAccess() != toolsetv1.Access_ACCESS_READ {
				access = catalog.AccessWrite // anything but an explicit read counts as a write
			}
			out = append(out, catalog.Subject{Kind: catalog.SubjectPath, Arg: k.Path.GetArgument(), Access: access})
		case *toolsetv1.Subject_Url:
			out = append(out, catalog.Subject{Kind: catalog.SubjectURL, Arg: k.Url.GetArgument()})
		case *toolsetv1.Subject_Command:
			c := k.Command
			out = append(out, catalog.Subject{Kind: catalog.SubjectCommand, Arg: c.GetCommandArgument(),
				CwdArg: c.GetCwdArgument(), EnvArg: c.GetEnvArgument(),
				BackgroundArg: c.GetBackgroundArgument(), TimeoutArg: c.GetTimeoutArgument()})
		}
	}
	return out
}
