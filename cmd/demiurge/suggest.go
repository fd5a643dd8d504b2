package main

import (
	"fmt"

	"demiurge.dev/catalog"
)

// didYouMeanSuffix is "; did you mean X?" when a candidate is near name
// (catalog.Suggest: the host's one "did you mean" for tools, arguments and
// agent.yaml keys, here for commands, shells and tool names), else "".
func didYouMeanSuffix(name string, candidates []string) string {
	if s := catalog.Suggest(name, candidates); s != "" && s != name {
		return fmt.Sprintf("; did you mean %q?", s)
	}
	return ""
}
