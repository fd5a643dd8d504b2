package main

import (
	"context"
	"io"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/approval"
)

// headless is the front end of `demiurge run`: no one can answer, so
// approvals deny (unless an --approve rule decided first) and clarify
// says no one can answer. It prints with frontview.Headless, as the
// small front end's run does.
type headless struct {
	*frontview.Headless
}

func newHeadless(out, errw io.Writer, asJSON bool, display catalog.DisplayMode) *headless {
	return &headless{frontview.NewHeadless(out, errw, asJSON, display)}
}

func (h *headless) Approver() approval.Provider { return approval.DenyAll{} }

func (h *headless) Clarify(context.Context, string, []string) (string, bool, error) {
	return "", false, nil
}
