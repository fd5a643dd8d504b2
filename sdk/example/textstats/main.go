// Command textstats is the example third-party toolset: one file per tool,
// its description in a Markdown file beside it, and one constructor list.
// Build it, drop the binary beside demiurge (or install it), and its tools
// appear in the catalog.
package main

import "demiurge.dev/sdk"

func main() {
	sdk.Serve(sdk.Toolset{Name: "textstats", Version: "0.1.0", Tools: Tools})
}

// Tools is the toolset's one constructor list.
func Tools() []sdk.Tool {
	return []sdk.Tool{
		newTextStats(),
	}
}
