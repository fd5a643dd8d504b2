//go:build !demiurgetest

package main

// endpoint is the Tavily web search API. Release builds have no way to
// point it elsewhere: the model, the core and the environment cannot.
func endpoint() string { return defaultEndpoint }
