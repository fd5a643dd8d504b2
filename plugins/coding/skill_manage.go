package main

import (
	_ "embed"
	"fmt"

	"demiurge.dev/plugins/coding/skills"
	"demiurge.dev/sdk"
)

//go:embed skill_manage.md
var skillManageDoc string

func newSkillManage() sdk.Tool {
	return sdk.DefineChecked(sdk.Spec{
		Name:        "skill_manage",
		Description: skillManageDoc,
		Metadata:    sdk.Metadata{Risk: "high", Capability: "fs.write", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
		Effect:      sdk.EffectWrite,
	}, precheckSkillManage, skillManage)
}

// precheckSkillManage refuses, before approval, a change that cannot be
// made: a bad name or path, front matter that does not validate, a patch
// whose text is absent or not unique.
func precheckSkillManage(ctx *sdk.Context, c skills.Change) (*sdk.Result, error) {
	r, err := skills.Open(ctx.SkillsRoot)
	if err != nil {
		return sdk.Errorf("refused", "%s", err.Error()), nil
	}
	defer r.Close()
	if err := r.Check(ctx, c); err != nil {
		return refusal(err)
	}
	return nil, nil
}

func skillManage(ctx *sdk.Context, c skills.Change) (*sdk.Result, error) {
	r, err := skills.Open(ctx.SkillsRoot)
	if err != nil {
		return sdk.Errorf("refused", "%s", err.Error()), nil
	}
	defer r.Close()
	out, err := r.Apply(ctx, c)
	if err != nil {
		return refusal(err)
	}
	msg := ""
	switch c.Action {
	case "create", "update", "write_file":
		verb := "replaced"
		if out.Created {
			verb = "created"
		}
		msg = fmt.Sprintf("%s %s (%d bytes)", verb, out.Path, out.Bytes)
	case "patch":
		msg = fmt.Sprintf("patched %s: %d replacement(s)", out.Path, out.Replacements)
		if out.Diff != "" {
			msg += "\n" + out.Diff
		}
	case "remove_file":
		msg = "removed " + out.Path
	case "delete":
		msg = "deleted skill " + out.Skill + " and all its files"
	}
	msg += "\nThe change takes effect from the next turn; skills_list and skill_view read the files as they are now."
	return &sdk.Result{Content: msg, Structured: out}, nil
}
