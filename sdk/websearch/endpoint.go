//go:build !demiurgetest

package websearch

import "demiurge.dev/shared/netpolicy"

// Endpoint is a provider's API at defaultURL under the production URL
// policy. Release builds have no way to point it elsewhere: the model, the
// core and the environment cannot.
func Endpoint(_, defaultURL string) (string, netpolicy.Options) {
	return defaultURL, netpolicy.Options{}
}
