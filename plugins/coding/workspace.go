package main

import (
	"errors"

	"demiurge.dev/plugins/coding/fsops"
	"demiurge.dev/sdk"
)

// openWorkspace opens the call's workspace with the grants the host made
// for it (exact paths outside the workspace an operator approved). A tool
// that writes honours only write grants: a read grant never lets it write.
func openWorkspace(ctx *sdk.Context, write bool) (*fsops.Workspace, error) {
	var grants []fsops.Grant
	for _, g := range ctx.Grants {
		if write && !g.Write {
			continue
		}
		grants = append(grants, fsops.Grant{Path: g.Path})
	}
	return fsops.OpenWorkspace(ctx.Workspace, grants)
}

// refusal turns a refusal of the model's input into an error result it can
// act on; anything else stays an error.
func refusal(err error) (*sdk.Result, error) {
	var re *fsops.RefusedError
	if errors.As(err, &re) {
		return sdk.Errorf("refused", "%s", re.Error()), nil
	}
	return nil, err
}
