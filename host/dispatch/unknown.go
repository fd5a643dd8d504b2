package dispatch

import (
	"fmt"
	"strings"

	"demiurge.dev/catalog"
)

// unknownToolMessage names the closest tool, so a model can correct a
// misspelt name without listing every tool.
func unknownToolMessage(name string, c *catalog.Catalog) string {
	for _, u := range c.Unavailable() {
		if u.Tool == name {
			return fmt.Sprintf("tool %q is not available in this session: it needs capability %s, which is not granted", name, u.Missing)
		}
	}
	var names []string
	for _, e := range c.Entries() {
		names = append(names, e.Spec.Name)
	}
	if best := catalog.Suggest(name, names); best != "" {
		return fmt.Sprintf("unknown tool %q; did you mean %q?", name, best)
	}
	if len(names) > 12 {
		names = append(names[:12], "…")
	}
	return fmt.Sprintf("unknown tool %q; available tools: %s", name, strings.Join(names, ", "))
}
