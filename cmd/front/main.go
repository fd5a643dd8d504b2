// Command front is bin/demiurge-front, the small front end: it answers the
// commands that only ask a running host (frontargs says which) over
// STATE/runtime/host.sock, and execs the full host, bin/demiurge-host
// beside it, for everything else — when no host runs, when DEMIURGE_HOST
// is off, when the host cannot be reached or answers with an error. Its
// output is the full CLI's (the rendering is shared, cmd/internal/frontview).
//
// It exists for start-up time: it links gRPC and the host protocol but not
// the host (dispatch, plugins, the schema validator, the model SDKs), whose
// binary and package initialisation cost tens of milliseconds (a test
// checks, TestFrontLinksNoHost).
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/cmd/internal/interrupt"
	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// HostBinary is the full host's file name, beside this binary.
const HostBinary = "demiurge-host"

func main() {
	if req, ok := frontargs.Parse(os.Args[1:], os.Getenv); ok {
		if code, answered := answer(req); answered {
			os.Exit(code)
		}
	}
	fmt.Fprintf(os.Stderr, "demiurge: %v\n", execHost(os.Args))
	os.Exit(1)
}

// answer asks the running host and prints its answer, with the exit
// status. It reports answered=false, having printed nothing, whenever the
// full host should answer instead: it then prints what it prints (no
// host, a refusal, an error).
func answer(req frontargs.Request) (code int, answered bool) {
	// A demiurge that a demiurge runs is refused by every host
	// (runtime.AdmitPeer): the full host says so.
	if runtime.HostAncestor(os.Getpid()) != "" {
		return 0, false
	}
	state, err := frontargs.StateDir(req.State)
	if err != nil {
		return 0, false
	}
	switch req.Command {
	case "host status":
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		var out bytes.Buffer
		if !hostStatus(ctx, req, state, &out) {
			return 0, false
		}
		os.Stdout.Write(out.Bytes())
		return 0, true
	case "tools call":
		ctx, stop := interrupt.Context(context.Background())
		defer stop()
		code, handed := toolsCall(ctx, req, state, os.Stdout, os.Stderr)
		return code, !handed
	case "audit":
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		code, handed := audit(ctx, req, state)
		return code, !handed
	case "mcp serve":
		code, handed := mcpServe(req, state)
		return code, !handed
	case "run":
		code, handed := run(req, state)
		return code, !handed
	case "session":
		code, handed := session(req, state)
		return code, !handed
	case "sessions list", "sessions show":
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		code, handed := sessions(ctx, req, state)
		return code, !handed
	case "tasks list", "tasks show", "tasks logs", "tasks wait", "tasks cancel":
		// Those that wait or act end at Ctrl-C as the full CLI's do; the
		// others are bounded.
		var ctx context.Context
		var cancel context.CancelFunc
		if req.Command == "tasks wait" || req.Command == "tasks cancel" || req.Follow {
			ctx, cancel = interrupt.Context(context.Background())
		} else {
			ctx, cancel = context.WithTimeout(context.Background(), time.Minute)
		}
		defer cancel()
		code, handed := tasks(ctx, req, state)
		return code, !handed
	}
	return 0, false
}

// hostStatus writes the running host's status to out; false when the
// full host should answer.
func hostStatus(ctx context.Context, req frontargs.Request, state string, out io.Writer) bool {
	cl, err := hostclient.Dial(ctx, state, hostclient.DialOptions{Config: hostclient.AnyConfig})
	if err != nil {
		return false
	}
	defer cl.Close()
	st, err := cl.Status(ctx, &hostv1.StatusRequest{})
	if err != nil {
		return false
	}
	return frontview.HostStatus(out, st, req.JSON) == nil
}

// execHost replaces this process with the full host beside it, with the
// same arguments (argv[0] too) and environment. It returns only on failure.
func execHost(argv []string) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find the front end's own directory: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	host := filepath.Join(filepath.Dir(exe), HostBinary)
	err = syscall.Exec(host, argv, os.Environ())
	return fmt.Errorf("cannot run the full host %s: %w; run `make build`", host, err)
}
