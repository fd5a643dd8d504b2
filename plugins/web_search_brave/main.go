// Command demiurge-toolset-web_search_brave is the web_search provider
// package backed by the Brave Search API. It is installed with
// `demiurge package install web_search_brave`, never built in: the host
// binds BRAVE_API_KEY from its own environment to each call, so the key
// is never in this process's environment and never seen by the model.
package main

import (
	"demiurge.dev/sdk"
	"demiurge.dev/sdk/websearch"
)

// Version is the package's semver; package.json must say the same.
const Version = "0.1.0"

// Name is the toolset and package name.
const Name = "web_search_brave"

func main() {
	sdk.Serve(sdk.Toolset{Name: Name, Version: Version, Tools: Tools})
}

// Tools is the toolset's one constructor list; the API is the production
// one (see websearch.Endpoint).
func Tools() []sdk.Tool {
	return []sdk.Tool{newWebSearch(websearch.NewAPI(websearch.Endpoint(Name, defaultEndpoint)))}
}
