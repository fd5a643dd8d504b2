package main

import (
	_ "embed"
	"fmt"

	"demiurge.dev/plugins/coding/fsops"
	"demiurge.dev/sdk"
)

//go:embed patch.md
var patchDoc string

func newPatch() sdk.Tool {
	return sdk.DefineChecked(sdk.Spec{
		Name: "patch", ApprovalPreview: "file_patch", // a diff, not the arguments, for the approver
		Description: patchDoc,
		Metadata:    sdk.Metadata{Risk: "medium", Capability: "fs.write", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
		Effect:      sdk.EffectWrite,
		Subjects:    []sdk.Subject{sdk.WritesPath("path")},
	}, precheckPatch, applyPatch)
}

// precheckPatch refuses, before approval, an edit that cannot apply.
func precheckPatch(ctx *sdk.Context, p fsops.PatchParams) (*sdk.Result, error) {
	ws, err := openWorkspace(ctx, true)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	if _, err := fsops.PatchPrecheck(ctx, ws, p); err != nil {
		return refusal(err)
	}
	return nil, nil
}

func applyPatch(ctx *sdk.Context, p fsops.PatchParams) (*sdk.Result, error) {
	ws, err := openWorkspace(ctx, true)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	r, err := fsops.Patch(ctx, ws, p)
	if err != nil {
		return refusal(err)
	}
	dropped := ""
	if r.DroppedBits != "" {
		dropped = fmt.Sprintf(", %s dropped", r.DroppedBits)
	}
	return &sdk.Result{
		Content:    fmt.Sprintf("patched %s: %d replacement(s), %d → %d bytes%s, sha256 %s\n%s", r.Path, r.Replacements, r.BytesBefore, r.BytesAfter, dropped, r.SHA256, r.Diff),
		Structured: r,
	}, nil
}
