//go:build demiurgetest

package websearch

import (
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/shared/netpolicy"
)

// Endpoint, in binaries built with the demiurgetest tag only, may be
// pointed at a loopback server that speaks the provider's API, by the file
// <name>.endpoint in the plugin's HOME: a directory the host owns under
// its state directory (the plugin's environment is an allowlist, so an
// environment variable would not arrive). The URL policy then lets
// loopback through, as its test hook allows. Release builds do not
// contain this file.
func Endpoint(name, defaultURL string) (string, netpolicy.Options) {
	b, err := os.ReadFile(filepath.Join(os.Getenv("HOME"), name+".endpoint"))
	if err != nil {
		return defaultURL, netpolicy.Options{}
	}
	return strings.TrimSpace(string(b)), netpolicy.Options{AllowLoopbackForTests: true}
}
