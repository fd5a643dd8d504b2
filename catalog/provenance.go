package catalog

import "fmt"

// String describes where a tool came from, for operator messages:
// `builtin toolset "coding" (plugin demiurge-coding 0.1.0)`.
func (p Provenance) String() string {
	var s string
	switch p.Kind {
	case SourceBuiltin:
		s = fmt.Sprintf("builtin toolset %q", p.Toolset)
	case SourceInstalled:
		s = fmt.Sprintf("installed toolset %q", p.Toolset)
	case SourceAuthored:
		s = fmt.Sprintf("authored tools %q", p.Toolset)
	case SourceMCP:
		s = fmt.Sprintf("MCP server %q", p.Toolset)
	default:
		s = fmt.Sprintf("%s source %q", p.Kind, p.Toolset)
	}
	if p.Plugin != "" {
		s += " (plugin " + p.Plugin
		if p.Version != "" {
			s += " " + p.Version
		}
		s += ")"
	}
	if p.Path != "" {
		s += " declared in " + p.Path
	}
	return s
}

// CollisionError is two sources offering the same model-visible tool name.
// The host never prefers one silently: a collision between builtin and
// authored tools fails core loading, one involving an MCP tool fails
// catalog building (InvolvesMCP tells the two apart).
type CollisionError struct {
	Name          string
	First, Second Provenance
	InvolvesMCP   bool
}

func (e *CollisionError) Error() string {
	return fmt.Sprintf("tool name %q is provided twice: by %s and by %s; rename one of them (tool names must be unique across builtin, authored and MCP tools)",
		e.Name, e.First, e.Second)
}
