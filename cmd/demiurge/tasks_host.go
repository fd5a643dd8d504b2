package main

import (
	"github.com/urfave/cli/v2"

	"demiurge.dev/host/hostd"
	"demiurge.dev/host/runtime"
)

// hostTasks reaches the live tasks of the state's running host over the
// host socket (its Tasks call); no host is started for it: with none
// running, the record in the store answers. ok is false when no host
// (of protocol minor 6 or later) runs.
func hostTasks(c *cli.Context, state string) (tasks *runtime.RemoteTasks, closeFn func(), ok bool) {
	if !hostEnabled() {
		return nil, nil, false
	}
	// Tasks are not shaped by the host's options: any front end of the
	// operator's may ask, as over the task socket before.
	cl, err := hostd.Dial(c.Context, state, hostd.DialOptions{Config: hostd.AnyConfig, Principal: c.String("principal")})
	if err != nil {
		return nil, nil, false
	}
	if cl.Needs(6, "tasks") != nil {
		cl.Close()
		return nil, nil, false
	}
	return cl.RemoteTasks(c.String("principal")), func() { cl.Close() }, true
}
