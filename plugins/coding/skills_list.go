package main

import (
	_ "embed"
	"fmt"
	"strings"

	"demiurge.dev/plugins/coding/skills"
	"demiurge.dev/sdk"
)

//go:embed skills_list.md
var skillsListDoc string

type skillsListParams struct {
	Offset int `json:"offset,omitempty" jsonschema:"minimum=0" jsonschema_description:"Index of the first skill to list (0-based), from next_offset of an earlier answer."`
	Limit  int `json:"limit,omitempty" jsonschema:"minimum=0,maximum=500" jsonschema_description:"Most skills to list (default 100, at most 500)."`
}

func newSkillsList() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name:        "skills_list",
		Description: skillsListDoc,
		Metadata:    sdk.Metadata{Risk: "low", Capability: "fs.read", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
		Effect:      sdk.EffectRead,
	}, skillsList)
}

func skillsList(ctx *sdk.Context, p skillsListParams) (*sdk.Result, error) {
	r, err := skills.Open(ctx.SkillsRoot)
	if err != nil {
		return sdk.Errorf("refused", "%s", err.Error()), nil
	}
	defer r.Close()
	l, err := r.List(p.Offset, p.Limit)
	if err != nil {
		return refusal(err)
	}
	return &sdk.Result{Content: renderSkillsList(l), Structured: l}, nil
}

// renderSkillsList is one line a skill, then a footer with the exact
// totals and how to go on.
func renderSkillsList(l skills.Listing) string {
	var b strings.Builder
	for _, s := range l.Skills {
		fmt.Fprintf(&b, "%s: %s\n", s.Name, strings.Join(strings.Fields(s.Description), " "))
	}
	end := l.Offset + len(l.Skills)
	switch {
	case l.Total == 0:
		b.WriteString("No skills.")
	case len(l.Skills) == 0:
		fmt.Fprintf(&b, "No skills from offset %d; there are %d.", l.Offset, l.Total)
	default:
		fmt.Fprintf(&b, "Skills %d-%d of %d.", l.Offset+1, end, l.Total)
	}
	if l.Truncated {
		fmt.Fprintf(&b, " More: skills_list with offset %d (stopped by %s).", l.NextOffset, l.StoppedBy)
	}
	if l.ProblemsTotal > 0 {
		fmt.Fprintf(&b, "\n%d director%s left out:", l.ProblemsTotal, plural(l.ProblemsTotal, "y", "ies"))
		for _, p := range l.Problems {
			fmt.Fprintf(&b, "\n  %s: %s", p.Name, p.Reason)
		}
		if l.ProblemsTotal > len(l.Problems) {
			fmt.Fprintf(&b, "\n  ... and %d more", l.ProblemsTotal-len(l.Problems))
		}
	}
	b.WriteString("\nLoad one with skill_view(name).")
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
