// Command demiurge-sandbox-first is the sandbox helper's first stage as a
// small binary of its own: sandbox.Wrap starts it, when it lies beside
// the helper, instead of `demiurge-sandbox --spawn`, because it starts
// faster (no seccomp, Landlock, JSON or network packages to initialise)
// and it starts on every sandboxed command.
//
//	demiurge-sandbox-first HELPER offline|online|proxied --policy JSON -- PROGRAM [ARGS...]
package main

import (
	"os"
	"path/filepath"

	"demiurge.dev/shared/sandbox/firststage"
)

func main() {
	args := os.Args[1:]
	if len(args) < 2 || !filepath.IsAbs(args[0]) {
		fail("usage: demiurge-sandbox-first HELPER offline|online|proxied --policy JSON -- PROGRAM [ARGS...]")
	}
	if err := firststage.Run(args[0], args[1], args[2:]); err != nil {
		fail(err.Error())
	}
}

// fail: exit status 125, as the helper's (the command did not run).
func fail(msg string) {
	os.Stderr.WriteString("demiurge-sandbox-first: " + msg + "\n")
	os.Exit(125)
}
