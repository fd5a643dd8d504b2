// Command demiurge-toolset-web_search_tavily is the web_search provider
// package backed by the Tavily search API. It is installed with
// `demiurge package install web_search_tavily`, never built in: the host
// binds TAVILY_API_KEY from its own environment to each call, so the key
// is never in this process's environment and never seen by the model.
package main

import "demiurge.dev/sdk"

func main() { sdk.Serve(toolset) }
