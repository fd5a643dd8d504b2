package catalog

import "slices"

// The host services a tool may declare (ToolSpec.HostServices): what it
// asks the host for beyond its own effect. The host answers one only for
// a tool that declares it and comes from a built-in toolset (GrantsHost-
// Service); dispatch knows no tool by name.
const (
	ServiceClarify        = "clarify"         // ask the operator a question
	ServiceTodo           = "todo"            // read and replace the session's task list
	ServiceSessionHistory = "session_history" // search the principal's session history
	ServiceDelegate       = "delegate"        // start a child agent (the spawn gate)
	ServiceSchedule       = "schedule"        // manage the host's schedules
	ServiceCoreControl    = "core_control"    // reach the core repository (rollback, evolution)
)

// The approval previews a tool may declare (ToolSpec.ApprovalPreview).
const (
	PreviewFileWrite = "file_write" // a diff of the file against the content argument
	PreviewFilePatch = "file_patch" // a diff of old_string against new_string
)

// ApprovalPreviewKind is the preview the host shows for this tool's calls:
// what it declared if it comes with the host, "" (the arguments) for any
// other source, whose declaration would make the operator read a diff of
// what the tool may not do.
func (s *ToolSpec) ApprovalPreviewKind() string {
	if s.Provenance.Kind != SourceBuiltin {
		return ""
	}
	return s.ApprovalPreview
}

// GrantsHostService reports whether the host answers service for this
// tool: it declared the service, and its source is a toolset that came
// with the host. An installed or authored tool's declaration is never
// granted.
func (s *ToolSpec) GrantsHostService(service string) bool {
	return s.Provenance.Kind == SourceBuiltin && slices.Contains(s.HostServices, service)
}
