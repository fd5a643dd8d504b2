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
func agentInstructions(h *toolhost.Host) []func(context.Context) (string, error) {
	if h.Core == nil || h.Core.SkillsRoot == "" {
		return nil
	}
	return []func(context.Context) (string, error){skills.Instructions(h.Core.SkillsRoot, 0)}
}
