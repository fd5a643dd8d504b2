package core

import (
	"demiurge.dev/host/egress"

	"maps"
	"slices"

	"demiurge.dev/catalog"
)

// FileName is the name of an agent core's declaration file.
const FileName = "agent.yaml"

// MaxFileSize bounds agent.yaml: it is a short declaration, and the bound
// keeps a wrong --core (a log file, a device) from being read whole.
const MaxFileSize = 1 << 20

// EmbeddedFile is Core.File for the embedded default core.
const EmbeddedFile = "<embedded default core>"

// Core is a loaded agent core: what agent.yaml declares, with paths
// resolved and every value validated.
type Core struct {
	// Name is the optional name from agent.yaml.
	Name string
	// Dir is the symlink-resolved absolute core directory; "" for the
	// embedded default core.
	Dir string
	// File is the absolute path of agent.yaml, or EmbeddedFile.
	File string
	// Toolsets are the toolsets declared, in file order: built-in ones
	// and installed ones (`demiurge plugins install`).
	Toolsets []string
	// ToolsRoot and MCPRoot are the resolved slots.tools and slots.mcp
	// directories, inside Dir; "" when not declared.
	ToolsRoot, MCPRoot string
	// SkillsRoot is the resolved slots.skills directory, inside Dir, that
	// holds <name>/SKILL.md skills; "" when not declared (no skills and no
	// skill tools).
	SkillsRoot string
	// Deferred are the tools.deferred names: toolsets, MCP server ids or
	// tool names whose tools stay out of the provider definitions until a
	// session activates them with search_capabilities.
	Deferred []string
	// UntrustedReads is tools.untrusted_reads: file reads of the workspace
	// reach the model wrapped and screened like MCP and web results.
	UntrustedReads bool
	// Metadata are the tools.metadata overrides by tool name; each Origin
	// is "agent.yaml:LINE".
	Metadata map[string]catalog.Override
	// Capabilities are the grants for the core's sessions, in file order.
	Capabilities []string
	// CapabilityAt is where each grant is written (line and column, in
	// Capabilities' order), so the host's check of a grant can name it.
	CapabilityAt [][2]int
	// Approvals are the approval rules, "ACTION:TOOL[:PATTERN]".
	Approvals []string
	// Workspace is the resolved default workspace; "" when not declared
	// (the caller then uses its own default, the current directory).
	Workspace string
	// SandboxMode is `sandbox.mode` ("" when not set: the host's
	// default); SandboxRequire is `sandbox.require`: every command fails
	// when the kernel cannot enforce the mode.
	SandboxMode    string
	SandboxRequire bool
	// SandboxNetworkAllow is `sandbox.network_allow`: the core's domain
	// allowlist for network-mode commands, which only narrows the
	// operator's (nil: no narrowing).
	SandboxNetworkAllow []egress.Rule
	// Model is the `model:` block; nil when the core declares none.
	Model *ModelConfig
	// Revision is the hex sha256 of agent.yaml's bytes, or for a core from
	// the core repository the commit id: it binds session allows and
	// catalogs to the exact declaration they were made under.
	Revision string
	// Slots are the pipeline slots (slots/<id>/slot.yaml) by id, and
	// Pipelines the stages that order them (pipelines.yaml).
	Slots     map[string]*Slot
	Pipelines Pipelines
	// PolicyExamples are policy_examples.yaml's calls with the verdict the
	// core's policy must give each: checks the gates run, never rules.
	PolicyExamples []PolicyExample
	// Version is where a core from the core repository comes from; nil for
	// a plain directory (--core DIR) and the embedded default.
	Version *Version
}

// clone returns a deep copy, so that a caller changing its Core cannot
// change another's.
func (c *Core) clone() *Core {
	n := *c
	n.Toolsets = slices.Clone(c.Toolsets)
	n.Capabilities = slices.Clone(c.Capabilities)
	n.CapabilityAt = slices.Clone(c.CapabilityAt)
	n.Approvals = slices.Clone(c.Approvals)
	n.Deferred = slices.Clone(c.Deferred)
	n.Metadata = maps.Clone(c.Metadata)
	for k, o := range n.Metadata {
		n.Metadata[k] = cloneOverride(o)
	}
	n.Version = clonePtr(c.Version)
	n.Slots = maps.Clone(c.Slots) // a *Slot is never changed after loading
	n.Pipelines = c.Pipelines.clone()
	n.PolicyExamples = slices.Clone(c.PolicyExamples) // an example is never changed after loading
	if c.Model != nil {
		m := *c.Model
		m.Temperature = clonePtr(m.Temperature)
		n.Model = &m
	}
	return &n
}

func cloneOverride(o catalog.Override) catalog.Override {
	o.Risk = clonePtr(o.Risk)
	o.Capability = clonePtr(o.Capability)
	o.ApprovalPolicy = clonePtr(o.ApprovalPolicy)
	o.ModelOutputPolicy = clonePtr(o.ModelOutputPolicy)
	o.DisplayPolicy = clonePtr(o.DisplayPolicy)
	o.Enabled = clonePtr(o.Enabled)
	return o
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
