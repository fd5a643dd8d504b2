// Package catalog is the pure heart of tool resolution: tool specs, their
// sources, the per-turn resolved catalog, schemas and provider definitions.
// It does no I/O and knows nothing of gRPC, plugins or MCP clients. Schema
// compilation and argument checking live in catalog/argcheck, which a
// binary links only when it calls tools.
package catalog

import "encoding/json"

// Effect is the class of side effect a tool has.
type Effect string

const (
	EffectRead    Effect = "read"
	EffectWrite   Effect = "write"
	EffectExec    Effect = "exec"
	EffectNetwork Effect = "network"
	EffectControl Effect = "control"
)

// Access says whether a path subject is read or written.
type Access string

const (
	AccessRead  Access = "read"
	AccessWrite Access = "write"
)

// SubjectKind names what an argument designates.
type SubjectKind string

const (
	SubjectPath    SubjectKind = "path"
	SubjectCommand SubjectKind = "command"
	SubjectURL     SubjectKind = "url"
	// SubjectSkill is a file of a skill under the core's skills root: Arg
	// names the skill, PathArg its file (SKILL.md when absent or empty),
	// ActionArg the skill_manage action that decides what is touched.
	// The host derives the real path under the skills root and assesses
	// it like a path subject. Only the host's own skill tools have it.
	SubjectSkill SubjectKind = "skill"
)

// Subject tells the host which argument names what a call touches, so that
// the host, not the plugin, derives risk and approval.
type Subject struct {
	Kind SubjectKind `json:"kind"`
	// Arg is the argument holding the path, URL or command.
	Arg string `json:"arg"`
	// Access applies to path subjects.
	Access Access `json:"access,omitempty"`
	// Command subjects also name their execution-shape arguments.
	CwdArg        string `json:"cwd_arg,omitempty"`
	EnvArg        string `json:"env_arg,omitempty"`
	BackgroundArg string `json:"background_arg,omitempty"`
	TimeoutArg    string `json:"timeout_arg,omitempty"`
	// Skill subjects name the file and action arguments.
	PathArg   string `json:"path_arg,omitempty"`
	ActionArg string `json:"action_arg,omitempty"`
}

// Metadata is a tool's registry metadata.
type Metadata struct {
	Risk              Risk           `json:"risk"`
	Capability        string         `json:"capability,omitempty"`
	ApprovalPolicy    ApprovalPolicy `json:"approval_policy"`
	DisplayPolicy     string         `json:"display_policy,omitempty"`
	ModelOutputPolicy string         `json:"model_output_policy,omitempty"`
	// Capabilities are effect capabilities the implementation may require
	// at run time; they never satisfy the singular Capability gate.
	Capabilities []string `json:"capabilities,omitempty"`
	// LiteralCommandsAuto lets a command the shell guard proves literal and
	// read-only (allow/low) run without approval, although the tool's
	// approval policy is prompt (seed 000: only such commands are
	// auto-approved). Only the host's registry sets it, for the built-in
	// terminal, whose runtime executes the command as reviewed; a core
	// override of risk or approval_policy turns it off.
	LiteralCommandsAuto bool `json:"literal_commands_auto,omitempty"`
}

// SourceKind is where a tool comes from.
type SourceKind string

const (
	SourceBuiltin SourceKind = "builtin"
	// SourceInstalled is a third-party toolset plugin the operator
	// installed (under the state directory, or from a package): not ours,
	// so it never shows as builtin.
	SourceInstalled SourceKind = "installed"
	SourceAuthored  SourceKind = "authored"
	SourceMCP       SourceKind = "mcp"
)

// Provenance says where a tool came from, for diagnostics and display.
type Provenance struct {
	Kind SourceKind `json:"kind"`
	// Toolset is the toolset (builtin, authored) or server id (mcp).
	Toolset string `json:"toolset"`
	// Plugin is the plugin binary's name and version, when there is one.
	Plugin  string `json:"plugin,omitempty"`
	Version string `json:"version,omitempty"`
	// Path is the declaring file, when there is one (tool.yaml, server yaml).
	Path string `json:"path,omitempty"`
}

// ToolSpec is one tool as its source describes it.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
	Metadata    Metadata        `json:"metadata"`
	Effect      Effect          `json:"effect"`
	Subjects    []Subject       `json:"subjects,omitempty"`
	Provenance  Provenance      `json:"provenance"`
	// Precheck says the source can tell, without effects, whether a call
	// can succeed; dispatch asks before it asks for approval.
	Precheck bool `json:"precheck,omitempty"`
	// HostServices are the host services the tool declares it calls
	// (hostservices.go); the host grants them by provenance.
	HostServices []string `json:"host_services,omitempty"`
	// ApprovalPreview is how an approver is shown a call
	// (PreviewFileWrite, PreviewFilePatch; "" the arguments), honoured for
	// built-in tools only (ApprovalPreviewKind).
	ApprovalPreview string `json:"approval_preview,omitempty"`
}

// Source is one provider of tools: a toolset plugin, an authored-tool root
// or an MCP server. Binding is opaque to the catalog; dispatch gets it back
// on every entry so that a call needs no second lookup.
type Source struct {
	Kind    SourceKind
	Name    string
	Tools   []ToolSpec
	Binding any
}

// Override is one tools.metadata entry of agent.yaml. A nil field leaves
// the registry value; a set field may only make policy stricter.
type Override struct {
	Risk              *Risk           `json:"risk,omitempty"`
	Capability        *string         `json:"capability,omitempty"`
	ApprovalPolicy    *ApprovalPolicy `json:"approval_policy,omitempty"`
	ModelOutputPolicy *string         `json:"model_output_policy,omitempty"`
	DisplayPolicy     *string         `json:"display_policy,omitempty"`
	Enabled           *bool           `json:"enabled,omitempty"`
	// Origin names where the override was declared ("agent.yaml:12"), for
	// diagnostics.
	Origin string `json:"origin,omitempty"`
}
