package turn

import (
	"context"
	"fmt"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/untrusted"
)

// request builds the step's request: the system text with the
// instruction hooks, the tool definitions of this turn's resolution and
// the history's model views, compacted to fit the context window.
func (t *turnRun) request(ctx context.Context, dt *dispatch.Turn) (providers.Request, error) {
	tools := toolDefs(dt.Catalog)
	system, err := t.systemText(ctx, dt.HasUntrustedTools() || t.loop.holdsEnvelope())
	if err != nil {
		return providers.Request{}, err
	}
	req := providers.Request{Tools: tools, MaxOutputTokens: t.loop.MaxOutputTokens, Temperature: t.loop.Temperature}
	req, err = t.fit(ctx, req, system)
	return t.withTurnContext(req), err
}

// systemText is the loop's system text and what its hooks add; when the
// step's catalog has tools whose output the host wraps, or the history
// holds a wrapped result, the envelope's meaning comes last.
func (t *turnRun) systemText(ctx context.Context, untrustedTools bool) (string, error) {
	parts := []string{}
	if s := strings.TrimSpace(t.loop.System); s != "" {
		parts = append(parts, s)
	}
	for i, hook := range t.loop.Instructions {
		s, err := hook(ctx)
		if err != nil {
			return "", fmt.Errorf("system instruction hook %d: %w", i+1, err)
		}
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	parts = append(parts, t.pipe.system...)
	if untrustedTools {
		parts = append(parts, untrusted.Instructions)
	}
	return strings.Join(parts, "\n\n"), nil
}

// withSummary adds a compaction summary to the system text. The summary
// is the model's text written from the transcript, tool results from
// outside included, which an injection may have steered: it is wrapped
// as untrusted output (origin "summary", screened), with the
// instructions that explain the envelope, never the host's own words. Its
// boundary comes from the summary itself, so the text is the same at
// every request.
func withSummary(system, summary string) string {
	if summary == "" {
		return system
	}
	head, tail, _ := untrusted.Envelope(untrusted.BoundaryOf(summary), "summary", summary, untrusted.Screen(summary))
	s := "Summary of the earlier part of this conversation (written when it was compacted to fit the context window):\n" + head + summary + tail
	if !strings.Contains(system, untrusted.Instructions) {
		s += "\n\n" + untrusted.Instructions
	}
	if system == "" {
		return s
	}
	return system + "\n\n" + s
}

// toolDefs are the provider definitions of the turn's catalog, the same
// resolution `tools list --provider` prints: the offered entries with
// their canonical schema as it is (decoding each schema into a document
// and encoding it again at every step cost about half a millisecond of
// CPU a step for the same bytes; catalog.TestOfferedIsWhatDefinitionsHold).
func toolDefs(c *catalog.Catalog) []providers.ToolDef {
	if c == nil {
		return nil
	}
	offered := c.Offered()
	out := make([]providers.ToolDef, 0, len(offered))
	for _, e := range offered {
		out = append(out, providers.ToolDef{Name: e.Spec.Name, Description: e.Spec.Description, Schema: e.Schema.JSON()})
	}
	return out
}
