// Command demiurge-toolset-coding is the built-in coding toolset: the file
// tools read_file, write_file, patch and search_files over the workspace,
// and web_extract. The terminal and the other coding tools join in later
// issues; a tool is listed here only once it works.
package main

import "demiurge.dev/sdk"

// Version is the toolset's semver.
const Version = "0.1.0"

func main() {
	sdk.Serve(sdk.Toolset{Name: "coding", Version: Version, Tools: Tools})
}

// Tools is the toolset's one constructor list.
func Tools() []sdk.Tool {
	return []sdk.Tool{
		newReadFile(),
		newWriteFile(),
		newPatch(),
		newSearchFiles(),
		newWebExtract(),
	}
}
