package main

import (
	_ "embed"
	"fmt"

	"demiurge.dev/plugins/coding/fsops"
	"demiurge.dev/sdk"
)

//go:embed write_file.md
var writeFileDoc string

func newWriteFile() sdk.Tool {
	return sdk.DefineChecked(sdk.Spec{
		Name: "write_file", ApprovalPreview: "file_write", // a diff, not the arguments, for the approver
		Description: writeFileDoc,
		Metadata:    sdk.Metadata{Risk: "medium", Capability: "fs.write", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
		Effect:      sdk.EffectWrite,
		Subjects:    []sdk.Subject{sdk.WritesPath("path")},
	}, precheckWrite, writeFile)
}

// precheckWrite refuses, before approval, a write that cannot happen.
func precheckWrite(ctx *sdk.Context, p fsops.WriteParams) (*sdk.Result, error) {
	ws, err := openWorkspace(ctx, true)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	if err := fsops.WritePrecheck(ctx, ws, p); err != nil {
		return refusal(err)
	}
	return nil, nil
}

func writeFile(ctx *sdk.Context, p fsops.WriteParams) (*sdk.Result, error) {
	ws, err := openWorkspace(ctx, true)
	if err != nil {
		return nil, err
	}
	defer ws.Close()
	r, err := fsops.WriteFile(ctx, ws, p)
	if err != nil {
		return refusal(err)
	}
	verb := "replaced"
	if r.Created {
		verb = "created"
	}
	dropped := ""
	if r.DroppedBits != "" {
		dropped = fmt.Sprintf(" (%s dropped)", r.DroppedBits)
	}
	return &sdk.Result{
		Content:    fmt.Sprintf("%s %s: %d bytes, mode %s%s, sha256 %s", verb, r.Path, r.BytesWritten, r.Mode, dropped, r.SHA256),
		Structured: r,
	}, nil
}
