package turn

import (
	"context"
	"encoding/json"
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
	tools, err := toolDefs(dt.Catalog)
	if err != nil {
		return providers.Request{}, err
	}
	system, err := t.systemText(ctx, dt.HasUntrustedTools())
	if err != nil {
		return providers.Request{}, err
	}
	req := providers.Request{Tools: tools, MaxOutputTokens: t.loop.MaxOutputTokens, Temperature: t.loop.Temperature}
	req, err = t.fit(ctx, req, system)
	return t.withTurnContext(req), err
}

// systemText is the loop's system text and what its hooks add; when the
// step's catalog has tools whose output the host wraps, the envelope's
// meaning comes last.
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

// withSummary adds a compaction summary to the system text.
func withSummary(system, summary string) string {
	if summary == "" {
		return system
	}
	s := "Summary of the earlier part of this conversation (written when it was compacted to fit the context window):\n" + summary
	if system == "" {
		return s
	}
	return system + "\n\n" + s
}

// toolDefs are the provider definitions of the turn's catalog, the same
// resolution `tools list --provider` prints.
func toolDefs(c *catalog.Catalog) ([]providers.ToolDef, error) {
	if c == nil {
		return nil, nil
	}
	defs, err := c.Definitions(catalog.ProviderAnthropic)
	if err != nil {
		return nil, err
	}
	out := make([]providers.ToolDef, 0, len(defs))
	for _, d := range defs {
		schema, err := json.Marshal(d["input_schema"])
		if err != nil {
			return nil, fmt.Errorf("tool %v: schema: %w", d["name"], err)
		}
		name, _ := d["name"].(string)
		desc, _ := d["description"].(string)
		out = append(out, providers.ToolDef{Name: name, Description: desc, Schema: schema})
	}
	return out, nil
}
