package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/runtime"
)

// tasks is `demiurge tasks list`, `tasks show ID` and `tasks logs ID`
// (without --follow; wait, cancel and logs --follow: taskwait.go) through the running
// host's Tasks call, as the full CLI asks it (hostTasks, for the operator's
// scope: every session of the local user's principal) and printed with
// the same code. Both only read, so whatever goes wrong before printing
// (no host of these options, an old host, an unknown id, the host gone)
// hands over (handed=true, nothing printed): the full CLI asks again, and
// falls back to the store or says why.
func tasks(ctx context.Context, req frontargs.Request, state string) (code int, handed bool) {
	// The host's options must be these: then the full CLI, which opens a
	// host of them in process before it asks, would open it without a word.
	// It refuses a relative --workspace (a tools call through the host
	// does not): a relative path of any option hands over.
	for _, path := range []string{req.Workspace, req.Core, req.PluginDir} {
		if path != "" && !filepath.IsAbs(path) {
			return 0, true
		}
	}
	cl, ok := dialNeeding(ctx, req, state, 6, "tasks")
	if !ok {
		return 0, true
	}
	defer cl.Close()
	// The request names no principal: the host answers for this front
	// end's own, and refuses a scope of another's (principal isolation
	// is the host's, as for the full CLI).
	m := cl.RemoteTasks("")
	scope := runtime.TaskScope{Principal: operatorPrincipal(), AllSessions: true}
	switch {
	case req.Command == "tasks wait":
		return taskWait(ctx, req, m, scope)
	case req.Command == "tasks cancel":
		return taskCancel(ctx, req, m, scope)
	case req.Command == "tasks logs" && req.Follow:
		return taskFollow(ctx, req, m, scope)
	}
	// Printed whole once answered: stdout, and the note of dropped log
	// chunks on stderr.
	var out, errOut bytes.Buffer
	switch req.Command {
	case "tasks list":
		ts, err := m.List(scope)
		if err != nil || frontview.Tasks(&out, ts, req.JSON) != nil {
			return 0, true
		}
	case "tasks show":
		id, ok := resolve(m, scope, req.Task)
		if !ok {
			return 0, true
		}
		t, err := m.Get(scope, id)
		if err != nil || frontview.Task(&out, t, nil, req.JSON) != nil {
			return 0, true
		}
	case "tasks logs":
		id, ok := resolve(m, scope, req.Task)
		if !ok {
			return 0, true
		}
		first := true
		err := m.Logs(ctx, scope, id, 0, false, func(c runtime.LogChunk) error {
			err := frontview.TaskLogChunk(&out, &errOut, c, first, req.JSON)
			first = false
			return err
		})
		if err != nil {
			return 0, true
		}
	default:
		return 0, true
	}
	return printed(out.Bytes(), errOut.Bytes(), 0)
}

// printed writes an answer made whole (stderr's part first) and returns
// code, or 1 when stdout cannot take it, as the full CLI reports it.
func printed(out, errOut []byte, code int) (int, bool) {
	os.Stderr.Write(errOut)
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
		return 1, false
	}
	return code, false
}

// resolve turns 'last' into the newest task's id, as the full CLI does;
// false when it cannot (no tasks: the full CLI says so).
func resolve(m *runtime.RemoteTasks, scope runtime.TaskScope, id string) (string, bool) {
	if id != "last" {
		return id, true
	}
	ts, err := m.List(scope)
	if err != nil || len(ts) == 0 {
		return "", false
	}
	return ts[0].ID, true
}

// operatorPrincipal is the principal the full CLI's in-process host
// names in the operator's task scope (toolhost.Principal("")): the
// local user's.
func operatorPrincipal() string {
	if u, err := user.Current(); err == nil {
		return "local:" + u.Username
	}
	return "local"
}
