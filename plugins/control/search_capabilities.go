package main

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"demiurge.dev/sdk"
	"demiurge.dev/shared/toolsetv1"
)

//go:embed search_capabilities.md
var searchCapabilitiesDoc string

type searchCapabilitiesParams struct {
	Query string `json:"query" jsonschema:"minLength=1,maxLength=500" jsonschema_description:"Words from the name or purpose of the tools you need, e.g. \"jira issues\" or \"render pdf\"."`
	Limit int    `json:"limit,omitempty" jsonschema:"minimum=0,maximum=50" jsonschema_description:"Most tools to activate (default 10, at most 50)."`
}

// The search and the activation are the host's: it holds the session's
// catalog and records what the session activated.
func newSearchCapabilities() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "search_capabilities", Description: searchCapabilitiesDoc, Effect: sdk.EffectControl,
		Metadata: sdk.Metadata{Risk: "low", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
	}, func(ctx *sdk.Context, p searchCapabilitiesParams) (*sdk.Result, error) {
		resp, err := ctx.SearchCapabilities(p.Query, p.Limit)
		if err != nil {
			if errors.Is(err, sdk.ErrNoHost) {
				return sdk.Errorf("unavailable", "deferred tools cannot be searched here"), nil
			}
			return sdk.Errorf("unavailable", "%s", sdk.HostMessage(err)), nil
		}
		return &sdk.Result{Content: renderSearch(p.Query, resp), Structured: searchPayload(resp)}, nil
	})
}

type matchPayload struct {
	Name          string `json:"name"`
	Source        string `json:"source"`
	Description   string `json:"description,omitempty"`
	AlreadyActive bool   `json:"already_active,omitempty"`
}

func matches(in []*toolsetv1.CapabilityMatch) []matchPayload {
	out := make([]matchPayload, 0, len(in))
	for _, m := range in {
		out = append(out, matchPayload{Name: m.GetName(), Source: m.GetSource(), Description: m.GetDescription(), AlreadyActive: m.GetAlreadyActive()})
	}
	return out
}

func searchPayload(r *toolsetv1.SearchCapabilitiesResponse) map[string]any {
	return map[string]any{
		"activated": matches(r.GetActivated()), "unavailable_tools": matches(r.GetUnavailableTools()),
		"total_matches": r.GetTotalMatches(), "deferred_total": r.GetDeferredTotal(),
	}
}

func renderSearch(query string, r *toolsetv1.SearchCapabilitiesResponse) string {
	var b strings.Builder
	if r.GetTotalMatches() == 0 {
		fmt.Fprintf(&b, "No deferred tool matches %q (%d deferred tools searched). Try other words: a tool's name or what it is for.", shortArg(query), r.GetDeferredTotal())
		return b.String()
	}
	if a := r.GetActivated(); len(a) > 0 {
		b.WriteString("Activated for the rest of this session (call them like any other tool):\n")
		for _, m := range a {
			note := ""
			if m.GetAlreadyActive() {
				note = " (already active)"
			}
			fmt.Fprintf(&b, "  %s%s: %s\n", m.GetName(), note, firstLine(m.GetDescription(), summaryDescription))
		}
	}
	if u := r.GetUnavailableTools(); len(u) > 0 {
		b.WriteString("unavailable_tools (matched, but this session cannot provide them):\n")
		for _, m := range u {
			fmt.Fprintf(&b, "  %s: %s\n", m.GetName(), firstLine(m.GetDescription(), summaryDescription))
		}
	}
	shown := len(r.GetActivated()) + len(r.GetUnavailableTools())
	fmt.Fprintf(&b, "%d of %d matches shown; %d deferred tools searched.", shown, r.GetTotalMatches(), r.GetDeferredTotal())
	if int(r.GetTotalMatches()) > shown {
		b.WriteString(" Narrow the query or raise limit for the rest.")
	}
	return b.String()
}
