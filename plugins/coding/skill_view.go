package main

import (
	_ "embed"

	"demiurge.dev/plugins/coding/skills"
	"demiurge.dev/sdk"
)

//go:embed skill_view.md
var skillViewDoc string

func newSkillView() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name:        "skill_view",
		Description: skillViewDoc,
		Metadata:    sdk.Metadata{Risk: "low", Capability: "fs.read", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
		Effect:      sdk.EffectRead,
	}, skillView)
}

func skillView(ctx *sdk.Context, p skills.ViewParams) (*sdk.Result, error) {
	r, err := skills.Open(ctx.SkillsRoot)
	if err != nil {
		return sdk.Errorf("refused", "%s", err.Error()), nil
	}
	defer r.Close()
	res, err := r.View(ctx, p)
	if err != nil {
		return refusal(err)
	}
	return &sdk.Result{Content: renderRead(res), Structured: res}, nil
}
