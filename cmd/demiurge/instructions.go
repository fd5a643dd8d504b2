package main

import (
	"context"

	"demiurge.dev/host/skills"
	"demiurge.dev/host/toolhost"
)

// agentInstructions are the parts of the model's instructions the host
// adds to every turn: the skills index of the core (name and description
// of each skill, bounded; the text itself only through skill_view). They
// are rebuilt each turn, so a skill_manage change shows from the next one.
//
// The session's bootstrap snapshot (the core's bootstrap pipeline, e.g.
// the workspace's AGENTS.md) comes first; it is made once per session.
func agentInstructions(h *toolhost.Host) []func(context.Context) (string, error) {
	return agentInstructionsFor(h, nil)
}

// agentInstructionsFor are agentInstructions for the session s of a front
// end of the long-lived host (nil: the host's current session).
func agentInstructionsFor(h *toolhost.Host, s *toolhost.Session) []func(context.Context) (string, error) {
	if h.Core == nil {
		return nil
	}
	hooks := []func(context.Context) (string, error){h.BootstrapInstructionFor(s)}
	if h.Core.SkillsRoot == "" {
		return hooks
	}
	return append(hooks, skills.Instructions(h.Core.SkillsRoot, 0))
}
