// Package core loads an Agent Core: the directory whose agent.yaml declares
// a core's tool surface (built-in toolsets, the authored-tool and MCP
// roots, metadata overrides), its capability grants, its approval rules
// and its default workspace.
//
// The loader validates and resolves; it discovers nothing. Authored tools
// under slots.tools and MCP manifests under slots.mcp are found later by
// their own sources, and a toolset's plugin is looked up by the plugin
// manager.
//
// # agent.yaml
//
//	name: my-agent            # optional
//	toolsets: [coding]        # built-in toolsets: coding, demiurge_control (schedule: not built yet)
//	slots:
//	  tools: agent/tools      # authored-tool root, relative to the core directory
//	  mcp: agent/mcp          # MCP manifest root; absent = no MCP servers
//	tools:
//	  metadata:               # per-tool overrides; they may only tighten policy
//	    web_extract: {approval_policy: deny}
//	    project_note: {risk: low, enabled: false}
//	capabilities: [fs.read, fs.write]    # grants for the core's sessions
//	approvals:                # rules: ACTION:TOOL or ACTION:TOOL:PATTERN
//	  - allow:read_file
//	  - allow:write_file:docs/**
//	workspace: .              # optional default workspace, relative to the core
//
// Every key is optional, but the file may not be empty. The rules:
//
//   - Keys are checked at every level: an unknown key fails with the valid
//     keys and the nearest one ("did you mean toolsets?"). Duplicate keys,
//     YAML aliases, merge keys and more than one document are refused.
//   - Values have fixed types: name, slot roots, workspace, capabilities,
//     approval rules and the metadata strings are non-empty single-line
//     strings (an unquoted 123 or true is not a string); enabled is a
//     boolean; toolsets, capabilities and approvals are lists without
//     duplicates.
//   - toolsets names only the built-in toolsets of KnownToolsets.
//   - slots.tools and slots.mcp are existing directories inside the core
//     directory, checked after resolving symlinks; a root that leaves the
//     core through "..", an absolute path or a symlink is refused.
//   - tools.metadata keys are tool names (1-64 of A-Z a-z 0-9 _ -); each
//     override sets at least one of risk (low, medium, high), capability,
//     approval_policy (auto, prompt, deny), model_output_policy,
//     display_policy, enabled. That an override only makes a tool's policy
//     stricter is checked when the catalog resolves, against the tool's
//     registry metadata.
//   - capabilities are validated by host/policy, except that a wildcard
//     secret binding (secret.bind:*) is refused here.
//   - approvals are ACTION:TOOL[:PATTERN] with ACTION one of allow, prompt
//     or deny and TOOL an exact tool name; host/approval interprets them.
//   - workspace is an existing directory, relative to the core directory
//     or absolute; it may lie outside the core.
//   - agent.yaml is at most MaxFileSize bytes and must be a regular file.
//
// Every error is a *LoadError naming the file, line, column and dotted
// field, formatted like
//
//	/cores/a/agent.yaml:12:5: tools.metadata.web_extract.risk: unknown risk "lowest" (want low, medium or high)
//
// testdata/good holds example cores, testdata/bad one example of each
// refusal.
package core
