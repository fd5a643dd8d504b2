// Command providertest serves a scripted model provider on loopback for
// tests that drive the real binary (see package providertest):
//
//	go run demiurge.dev/host/providers/providertest/cmd/providertest serve --kind openai --script FILE.json
package main

import (
	"os"

	"demiurge.dev/host/providers/providertest"
)

func main() {
	os.Exit(providertest.Main(os.Args[1:], os.Stdout, os.Stderr))
}
