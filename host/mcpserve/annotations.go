package mcpserve

import (
	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/catalog"
)

// annotations are the MCP tool hints the host derives from an entry's
// effect class, subjects, risk and source. They are never copied from a
// plugin or an upstream MCP server. Where the host cannot tell, the hint
// is the conservative one (not read-only, destructive, not idempotent,
// open world), so that a client that trusts hints asks more, not less.
// conversationOnly are the built-in tools whose effects stay in the
// session's own state, served by the host itself (HostServices).
var conversationOnly = map[string]bool{"clarify": true, "todo": true, catalog.SearchCapabilitiesTool: true}

func annotations(e *catalog.Entry) mcp.ToolAnnotation {
	readOnly, destructive, idempotent, openWorld := false, true, false, false
	switch e.Spec.Effect {
	case catalog.EffectRead:
		readOnly, destructive, idempotent = true, false, true
	case catalog.EffectExec, catalog.EffectNetwork:
		openWorld = true
	}
	for _, s := range e.Spec.Subjects {
		switch {
		case s.Kind == catalog.SubjectURL, s.Kind == catalog.SubjectCommand:
			openWorld = true
		case s.Kind == catalog.SubjectPath && s.Access == catalog.AccessWrite:
			readOnly, destructive, idempotent = false, true, false
		}
		if s.Kind == catalog.SubjectCommand {
			readOnly, destructive, idempotent = false, true, false
		}
	}
	if e.Spec.Provenance.Kind == catalog.SourceMCP {
		// Another server's tool: what it reaches is that server's affair.
		openWorld = true
	}
	if e.Effective.Risk == catalog.RiskHigh {
		readOnly, destructive, idempotent = false, true, false
	}
	if e.Spec.Provenance.Kind != catalog.SourceBuiltin && readOnly {
		// A third party's claim of a read effect: the host checks the
		// paths it names, but not what its process does. Not read-only
		// and, as the host cannot tell, possibly destructive.
		readOnly, destructive, idempotent = false, true, false
	}
	if e.Spec.Provenance.Kind == catalog.SourceBuiltin && conversationOnly[e.Spec.Name] {
		// The host's own conversation tools change the session's own
		// state (a question, the todo list, the offered tools), nothing
		// of the operator's.
		destructive, openWorld = false, false
	}
	return mcp.ToolAnnotation{
		ReadOnlyHint: &readOnly, DestructiveHint: &destructive,
		IdempotentHint: &idempotent, OpenWorldHint: &openWorld,
	}
}
