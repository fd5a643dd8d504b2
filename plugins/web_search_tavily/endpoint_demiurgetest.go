//go:build demiurgetest

package main

import (
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/shared/netpolicy"
)

// endpoint, in binaries built with the demiurgetest tag only, may be
// pointed at a loopback server that speaks the Tavily API, by a file in the
// plugin's HOME: a directory the host owns under its state directory (the
// plugin's environment is an allowlist, so an environment variable would
// not arrive). The URL policy then lets loopback through, as its test hook
// allows. Release builds do not contain this file.
func endpoint() (string, netpolicy.Options) {
	b, err := os.ReadFile(filepath.Join(os.Getenv("HOME"), Name+".endpoint"))
	if err != nil {
		return defaultEndpoint, netpolicy.Options{}
	}
	return strings.TrimSpace(string(b)), netpolicy.Options{AllowLoopbackForTests: true}
}
