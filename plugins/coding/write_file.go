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
	return sdk.Define(sdk.Spec{
		Name:        "write_file",
		Description: writeFileDoc,
		Metadata:    sdk.Metadata{Risk: "medium", Capability: "fs.write", ApprovalPolicy: "prompt", DisplayPolicy: "summary"},
		Effect:      sdk.EffectWrite,
		Subjects:    []sdk.Subject{sdk.WritesPath("path")},
	}, writeFile)
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
	return &sdk.Result{
		Content:    fmt.Sprintf("%s %s: %d bytes, mode %s, sha256 %s", verb, r.Path, r.BytesWritten, r.Mode, r.SHA256),
		Structured: r,
	}, nil
}
