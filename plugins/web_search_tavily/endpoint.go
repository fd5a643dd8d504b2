//go:build !demiurgetest

package main

import "demiurge.dev/shared/netpolicy"

// endpoint is the Tavily API under the production URL policy. Release
// builds have no way to point it elsewhere: the model, the core and the
// environment cannot.
func endpoint() (string, netpolicy.Options) { return defaultEndpoint, netpolicy.Options{} }
