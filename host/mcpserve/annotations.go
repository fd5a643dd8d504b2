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
	return mcp.ToolAnnotation{
		ReadOnlyHint: &readOnly, DestructiveHint: &destructive,
		IdempotentHint: &idempotent, OpenWorldHint: &openWorld,
	}
}
