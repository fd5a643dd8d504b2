package evolve

import (
	"reflect"
	"testing"

	"demiurge.dev/host/core"
)

// reviewClassified is the closed world of the evolution review: every field
// a core is loaded into is either compared by the review (a change can widen
// authority, so the operator sees it) or named here as carrying no authority,
// with the reason. A field added to the loader fails
// TestEveryCoreFieldIsClassifiedByTheReview until someone decides which.
var reviewClassified = map[reflect.Type]map[string]string{
	reflect.TypeFor[core.Core](): {
		"Name": "neutral: a label", "Dir": "derived: where it was loaded from", "File": "derived",
		"Toolsets": "compared", "ToolsRoot": "compared: its authored tools (Authored)", "MCPRoot": "compared: its MCP servers",
		"SkillsRoot":     "neutral: skills are text the model reads; what they run goes through policed tools",
		"Deferred":       "neutral: only keeps tools out of the definitions until activated",
		"UntrustedReads": "compared", "Metadata": "compared", "Capabilities": "compared", "CapabilityAt": "derived: positions",
		"Approvals": "compared", "Workspace": "compared", "SandboxMode": "compared", "SandboxRequire": "compared",
		"SandboxNetworkAllow": "compared", "Model": "compared: the endpoint (see ModelConfig)", "Revision": "derived", "Version": "derived",
		"Slots":          "compared: each slot's declaration (see Slot)",
		"Pipelines":      "compared: each stage as it runs (Authority.Pipelines)",
		"PolicyExamples": "neutral: checks the gates run, never rules",
	},
	reflect.TypeFor[core.Slot](): {
		"ID": "derived", "Dir": "derived", "File": "derived",
		// A slot a stage runs: any file of it changed widens
		// (runningSlotChanges), so every field below is compared there.
		"Entrypoint":  "compared: a file of a slot a stage runs (runningSlotChanges); else its code runs in its sandbox with its declared capabilities",
		"Description": "neutral", "Capability": "compared", "Capabilities": "compared",
		"CapabilityAt": "derived", "CapabilitiesAt": "derived",
		"FailurePolicy": "compared: slot.yaml of a slot a stage runs (runningSlotChanges)", "HistoryPolicy": "compared: as FailurePolicy", "DefaultPlacement": "compared: as FailurePolicy",
		"TimeoutSeconds": "compared: as FailurePolicy",
	},
	reflect.TypeFor[core.ModelConfig](): {
		"Provider": "compared (Endpoint)", "BaseURL": "compared (Endpoint)", "APIKeyEnv": "compared (Endpoint)",
		"Name": "neutral: which model of the same endpoint", "MaxOutputTokens": "neutral", "Temperature": "neutral",
		"ContextWindow": "neutral", "ThinkingBudget": "neutral",
	},
}

// TestEveryCoreFieldIsClassifiedByTheReview pins the review's closed world:
// a core field nobody classified is a change the review would let through
// unseen (as the model endpoint and the authored tools' policies once were).
func TestEveryCoreFieldIsClassifiedByTheReview(t *testing.T) {
	for typ, fields := range reviewClassified {
		seen := map[string]bool{}
		for i := range typ.NumField() {
			f := typ.Field(i)
			seen[f.Name] = true
			if _, ok := fields[f.Name]; !ok {
				t.Errorf("%s.%s is not classified by the evolution review: compare it in summary.go or name why it carries no authority", typ, f.Name)
			}
		}
		for name := range fields {
			if !seen[name] {
				t.Errorf("%s.%s is classified but no longer exists", typ, name)
			}
		}
	}
}
