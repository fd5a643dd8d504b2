package dispatch

import (
	"context"
	"errors"
	"strings"

	"demiurge.dev/shared/toolsetv1"
)

// maxListedDescription bounds one tool's description in tools_list, in
// runes: the provider definitions carry the whole text.
const maxListedDescription = 4000

// toolListing answers tools_list: the turn's own resolved catalog, the one
// its provider definitions and dispatch come from, so the model sees
// exactly the tools it may call with their effective policy, and the
// deferred ones (marked) that search_capabilities can activate. Schemas,
// declaring paths and diagnostics are the operator's view and stay out.
func (t *Turn) toolListing(context.Context) ([]*toolsetv1.ToolListing, error) {
	if t.Catalog == nil {
		return nil, errors.New("this turn has no tool catalog")
	}
	entries := t.Catalog.Entries()
	out := make([]*toolsetv1.ToolListing, 0, len(entries))
	for _, e := range entries {
		out = append(out, &toolsetv1.ToolListing{
			Name:        e.Spec.Name,
			Description: boundedText(strings.TrimSpace(e.Spec.Description), maxListedDescription),
			Source:      string(e.Spec.Provenance.Kind) + ":" + printableShort(e.Spec.Provenance.Toolset, 64),
			Effect:      string(e.Spec.Effect),
			Risk:        e.Effective.Risk.String(),
			Approval:    e.Effective.ApprovalPolicy.String(),
			Requires:    append([]string(nil), e.RequiredCapabilities...),
			Disclosure:  t.Catalog.DisclosureState(e.Spec.Name),
		})
	}
	return out, nil
}

// boundedText cuts s to limit runes, keeping its lines.
func boundedText(s string, limit int) string {
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}
