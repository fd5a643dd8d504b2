package agents

import (
	"slices"
	"strings"

	"demiurge.dev/host/core"
)

// selectGroups resolves a slot selection against one stage of the child
// core's active pipeline: none keeps only base (and the host's own
// project-instructions slot, which is base input's), All keeps the whole
// stage, a list keeps the listed slots in pipeline order and grouping.
// A listed id the stage does not hold is a refusal.
func selectGroups(field string, stage []core.Group, sel SlotSelection) ([]core.Group, error) {
	if sel.All {
		return slices.Clone(stage), nil
	}
	want := map[string]bool{}
	var unknown []string
	for _, id := range sel.IDs {
		if !inStage(stage, id) {
			unknown = append(unknown, id)
		}
		want[id] = true
	}
	if len(unknown) > 0 {
		return nil, refuse("%s: %s not in the child core's active pipeline (%s)", field, strings.Join(quoteAll(unknown), ", "), stageIDs(stage))
	}
	var out []core.Group
	for _, g := range stage {
		var keep core.Group
		for _, id := range g {
			if hostSlot(id) || want[id] {
				keep = append(keep, id)
			}
		}
		if len(keep) > 0 {
			out = append(out, keep)
		}
	}
	return out, nil
}

func hostSlot(id string) bool {
	return id == core.BaseInput || id == core.BaseOutput || id == core.ProjectInstructions
}

func inStage(stage []core.Group, id string) bool {
	for _, g := range stage {
		if slices.Contains(g, id) {
			return true
		}
	}
	return false
}

func stageIDs(stage []core.Group) string {
	var ids []string
	for _, g := range stage {
		ids = append(ids, g...)
	}
	return "it has " + strings.Join(ids, ", ")
}

func quoteAll(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = "\"" + short(id) + "\""
	}
	return out
}
