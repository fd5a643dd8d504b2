package main

import (
	"os"

	"demiurge.dev/shared/sandbox/firststage"
)

// spawn is the first stage run by the helper itself (--spawn), for a
// launcher that finds no demiurge-sandbox-first beside the helper; see
// firststage.Run.
func spawn(net string, args []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	return firststage.Run(self, net, args)
}
