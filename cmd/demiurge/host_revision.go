package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/hostd"
)

// coreRevisionOption is the host-shaping line that names the core
// repository's live commit. A host loads its core when it opens, so after
// `core promote` or `core rollback` (or a commit) a running host still
// runs the old revision: a front end that reads another live has an idle
// host replaced by one that loads it, and is told about a busy one, so
// "a new revision applies from the next turn" holds through the host too.
const coreRevisionOption = hostd.CoreRevisionOption

// liveRevision is the live commit of the state's core repository when
// this front end runs a repository core (no --core), "" when it runs a
// plain core directory or the repository does not exist yet (the host
// creates it; "" is not compared: hostd.configDiff).
func liveRevision(c *cli.Context) string {
	if c.String("core") != "" {
		return ""
	}
	state, err := stateDir(c)
	if err != nil {
		return ""
	}
	repo, err := corerepo.Open(state)
	if err != nil {
		return ""
	}
	live, err := repo.Live()
	if err != nil {
		return ""
	}
	return live
}

// withRevision sets config's core-revision line to revision (the commit
// the host actually loaded).
func withRevision(config, revision string) string {
	lines := strings.Split(config, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, coreRevisionOption+"=") {
			out = append(out, l)
		}
	}
	return strings.Join(append(out, coreRevisionOption+"="+revision), "\n")
}
