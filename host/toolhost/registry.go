package toolhost

import "demiurge.dev/catalog"

// builtinRegistry is the host's own metadata for the built-in toolsets'
// tools (seed 000, "Built-In Tool Metadata"): the host, not the plugin,
// defines their risk, capability and approval default. A plugin's claim
// may only make them stricter. Keyed by toolset and tool, so that another
// plugin cannot borrow a built-in tool's policy by borrowing its name.
// A reference tool this build lacks (catalog.UnbuiltTools) has no entry:
// it joins in the change that makes it work.
var builtinRegistry = map[string]map[string]catalog.Metadata{
	"coding": {
		// Reads inside the workspace of non-sensitive paths are auto; the
		// path assessment raises the rest to prompt.
		"read_file":    {Risk: catalog.RiskLow, Capability: "fs.read", ApprovalPolicy: catalog.ApprovalAuto},
		"search_files": {Risk: catalog.RiskLow, Capability: "fs.read", ApprovalPolicy: catalog.ApprovalAuto},
		"write_file":   {Risk: catalog.RiskMedium, Capability: "fs.write", ApprovalPolicy: catalog.ApprovalPrompt},
		"patch":        {Risk: catalog.RiskMedium, Capability: "fs.write", ApprovalPolicy: catalog.ApprovalPrompt},
		// Prompt, except a literal read-only command the shell guard
		// allows (seed 000): the terminal runtime runs what was reviewed.
		"terminal":    {Risk: catalog.RiskHigh, Capability: "terminal.exec", ApprovalPolicy: catalog.ApprovalPrompt, LiteralCommandsAuto: true},
		"web_extract": {Risk: catalog.RiskMedium, Capability: "network.fetch", ApprovalPolicy: catalog.ApprovalPrompt},
		// The skill tools work only under the core's skills root (the host
		// gives them their subjects, skills.go): reading a skill is auto,
		// every change asks the operator (policy/assess_skill.go).
		"skills_list":  {Risk: catalog.RiskLow, Capability: "fs.read", ApprovalPolicy: catalog.ApprovalAuto},
		"skill_view":   {Risk: catalog.RiskLow, Capability: "fs.read", ApprovalPolicy: catalog.ApprovalAuto},
		"skill_manage": {Risk: catalog.RiskHigh, Capability: "fs.write", ApprovalPolicy: catalog.ApprovalPrompt},

		// The conversation tools. todo keeps the calling session's own
		// task list and clarify only asks the operator: nothing to gate.
		// session_search reads history: session.read and a prompt at
		// medium risk, resolved before any history is read (seed 000).
		"todo":           {Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
		"clarify":        {Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
		"session_search": {Risk: catalog.RiskMedium, Capability: "session.read", ApprovalPolicy: catalog.ApprovalPrompt},
	},
	"demiurge_control": {
		// tools_list shows the calling turn's own catalog, which the model
		// already has as its tool definitions: nothing to gate.
		"tools_list": {Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
		// The task tools reach only the calling turn's own tasks (the host
		// scopes them to its principal and session) and never their output:
		// reading and waiting need no capability beyond that scope.
		// Cancelling stops only what the caller started and was approved
		// for, so it is auto too, but gated by terminal.exec, the authority
		// that starts the commands it stops.
		"task_status":  {Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
		"task_list":    {Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
		"yield_until":  {Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
		"task_control": {Risk: catalog.RiskLow, Capability: "terminal.exec", ApprovalPolicy: catalog.ApprovalAuto},
		// search_capabilities only activates tools of the session's own
		// catalog; a call of one still goes through its own policy.
		"search_capabilities": {Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
		// delegate_task starts a child whose authority the spawn gate
		// derives from the caller's and only narrows; every call the child
		// makes goes through its own policy. The core must grant it.
		"delegate_task": {Risk: catalog.RiskLow, Capability: "tool.call:delegate_task", ApprovalPolicy: catalog.ApprovalAuto},
		// rollback_core moves the core the host runs: high risk, every
		// call asks the operator (seed 000, "Core Evolution Tools"); a
		// core's metadata can make it stricter, never looser.
		"rollback_core": {Risk: catalog.RiskHigh, Capability: "tool.call:rollback_core", ApprovalPolicy: catalog.ApprovalPrompt},
		// evolve_core: every action high risk with prompt policy, each
		// approved on its own (dispatch's action key); the operator alone
		// approves it (a core's rule never does).
		"evolve_core": {Risk: catalog.RiskHigh, Capability: "tool.call:evolve_core", ApprovalPolicy: catalog.ApprovalPrompt},
	},
	"schedule": {
		// schedule_manage sets up work that runs later with no one
		// present: prompt (seed 000). What the runs may do is a lease
		// only the operator approves, outside any tool call.
		"schedule_manage": {Risk: catalog.RiskMedium, Capability: "schedule.manage", ApprovalPolicy: catalog.ApprovalPrompt},
	},
}

// thirdPartyFloor is where a tool the host has no entry for starts: a
// plugin may raise it, never lower it. Operators lower friction with
// approval rules, which are explicit and audited.
var thirdPartyFloor = catalog.Metadata{Risk: catalog.RiskMedium, ApprovalPolicy: catalog.ApprovalPrompt}

// registryMetadata merges the host's metadata for a tool with the plugin's
// own claim, which can only make it stricter.
func registryMetadata(toolset string, builtin bool, tool string, claim catalog.Metadata, claimed claimedFields) catalog.Metadata {
	base, known := builtinRegistry[toolset][tool]
	if builtin && toolset == AuthoredToolset {
		base, known = authoredBase(claim, claimed), true
	}
	if !builtin || !known {
		base = thirdPartyFloor
		base.Capability = claim.Capability
	}
	// A plugin that asks for more than the registry gets it for every
	// command, literal or not.
	if (claimed.risk && claim.Risk > base.Risk) || (claimed.approval && claim.ApprovalPolicy > base.ApprovalPolicy) {
		base.LiteralCommandsAuto = false
	}
	if claimed.risk {
		base.Risk = catalog.MaxRisk(base.Risk, claim.Risk)
	}
	if claimed.approval {
		base.ApprovalPolicy = catalog.MaxApproval(base.ApprovalPolicy, claim.ApprovalPolicy)
	}
	if base.Capability == "" {
		base.Capability = claim.Capability
	}
	base.DisplayPolicy = claim.DisplayPolicy
	base.ModelOutputPolicy = claim.ModelOutputPolicy
	base.Capabilities = claim.Capabilities
	return base
}

// claimedFields says which metadata fields the plugin actually set.
type claimedFields struct{ risk, approval bool }
