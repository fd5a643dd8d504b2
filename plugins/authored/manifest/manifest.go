// Package manifest reads an authored tool's tool.yaml and finds the
// authored tools under a core's slots.tools root.
//
// tool.yaml accepts exactly the fields of the Tools reference, with their
// defaults:
//
//	entrypoint: module:execute     # module.py's execute(ctx, args), or exec:<path> for an executable
//	description: ""                # model-visible
//	input_schema: {}               # model-visible JSON Schema of the arguments
//	risk: medium                   # low | medium | high
//	capability: null               # the singular registry gate, required before the module runs
//	approval_policy: prompt        # auto | prompt | deny
//	display_policy: summary        # quiet | summary | full
//	model_output_policy: content
//	capabilities: []               # what the implementation may ctx.capability.require
//
// Slot-only fields (failure_policy, history_policy, default_placement,
// timeout_seconds) and unknown fields are refused with file, line and field.
package manifest

import (
	"encoding/json"
)

// FileName is the manifest of an authored tool.
const FileName = "tool.yaml"

// MaxFileSize bounds tool.yaml: it is a short declaration.
const MaxFileSize = 256 << 10

// Fields are the keys tool.yaml accepts, in the reference's order.
var Fields = []string{"entrypoint", "description", "input_schema", "risk", "capability",
	"approval_policy", "display_policy", "model_output_policy", "capabilities"}

// SlotOnlyFields belong to pipeline slots, not to tools.
var SlotOnlyFields = []string{"failure_policy", "history_policy", "default_placement", "timeout_seconds"}

// Manifest is one decoded tool.yaml with every default filled in.
type Manifest struct {
	Entrypoint        Entrypoint
	Description       string
	InputSchema       json.RawMessage
	Risk              string
	Capability        string // "" when null
	ApprovalPolicy    string
	DisplayPolicy     string
	ModelOutputPolicy string
	Capabilities      []string
}

// Defaults are the values of the fields tool.yaml leaves out.
func Defaults() Manifest {
	return Manifest{
		Entrypoint:        Entrypoint{Kind: KindPython, Module: "module", Function: "execute"},
		InputSchema:       json.RawMessage(`{}`),
		Risk:              "medium",
		ApprovalPolicy:    "prompt",
		DisplayPolicy:     "summary",
		ModelOutputPolicy: "content",
		Capabilities:      []string{},
	}
}

var (
	risks            = []string{"low", "medium", "high"}
	approvalPolicies = []string{"auto", "prompt", "deny"}
	displayPolicies  = []string{"quiet", "summary", "full"}
	// The host's values (catalog/output_policy.go; a plugin does not
	// import catalog): content, display, status.
	modelOutputPolicies = []string{"content", "display", "status"}
)
