// Command demiurge-toolset-web_search_brave is the web_search provider
// package backed by the Brave Search API. It is installed with
// `demiurge package install web_search_brave`, never built in: the host
// binds BRAVE_API_KEY from its own environment to each call, so the key
// is never in this process's environment and never seen by the model.
package main

import "demiurge.dev/sdk"

func main() { sdk.Serve(toolset) }
