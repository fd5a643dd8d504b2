//go:build demiurgetest

package main

import (
	"os"
	"path/filepath"
	"strings"
)

// endpoint, in binaries built with the demiurgetest tag only, may be
// pointed at a loopback server that speaks the Tavily API, by a file in the
// plugin's HOME: a directory the host owns under its state directory (the
// plugin's environment is an allowlist, so an environment variable would
// not arrive). Release builds do not contain this file.
func endpoint() string {
	b, err := os.ReadFile(filepath.Join(os.Getenv("HOME"), Name+".endpoint"))
	if err != nil {
		return defaultEndpoint
	}
	return strings.TrimSpace(string(b))
}
