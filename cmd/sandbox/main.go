// Command demiurge-sandbox is the re-exec helper: started by a launcher
// through sandbox.Wrap (in new namespaces), it restricts itself as the
// policy says and execs the command. It never runs anything unconfined
// unless the policy's mode is off.
//
//	demiurge-sandbox --spawn offline|online|proxied --policy JSON -- PROGRAM [ARGS...]
//	                                (what Wrap runs: starts the rest in new namespaces)
//	demiurge-sandbox [--map UID GID] [--report-fd N] --policy JSON -- PROGRAM [ARGS...]
//	demiurge-sandbox --guard -- PROGRAM [ARGS...]
//	                                (no confinement: runs it and, when it exits or the guard is
//	                                 sent SIGTERM, kills every process it left, setsid(2) or not)
//	demiurge-sandbox --probe        (exits 0: the launcher's namespace probe)
//	demiurge-sandbox --status       (what this kernel enforces, as JSON)
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"demiurge.dev/shared/sandbox"
)

// exitCannotSandbox is the exit status when the sandbox cannot be applied
// (the command did not run); 125 like env(1) and container runtimes.
const exitCannotSandbox = 125

func main() {
	args := os.Args[1:]
	// --map UID GID: the first stage left the new user namespace's maps
	// to this, its second stage; first of all, map the launcher's ids.
	if len(args) >= 3 && args[0] == "--map" {
		uid, uerr := strconv.Atoi(args[1])
		gid, gerr := strconv.Atoi(args[2])
		if uerr != nil || gerr != nil {
			fail(fmt.Errorf("--map %q %q: not a uid and gid", args[1], args[2]))
		}
		if err := sandbox.MapOwnIDs(uid, gid); err != nil {
			fail(err)
		}
		args = args[3:]
	}
	// --report-fd N: the first stage's pipe for the signal that killed the
	// command (the second stage is a pid 1, which cannot die of it).
	var report *os.File
	if len(args) >= 2 && args[0] == "--report-fd" {
		fd, err := strconv.Atoi(args[1])
		if err != nil || fd < 3 {
			fail(fmt.Errorf("--report-fd %q: not a descriptor above 2", args[1]))
		}
		report, args = os.NewFile(uintptr(fd), "report"), args[2:]
	}
	switch {
	case len(args) >= 2 && args[0] == "--spawn" && (args[1] == "offline" || args[1] == "online" || args[1] == "proxied"):
		fail(spawn(args[1], args[2:]))
	case len(args) >= 3 && args[0] == "--guard" && args[1] == "--":
		status, err := sandbox.Guard(args[2:])
		if err != nil {
			fail(err)
		}
		os.Exit(status)
	case len(args) == 1 && args[0] == "--probe":
		return
	case len(args) == 1 && args[0] == "--status":
		exe, _ := os.Executable()
		_ = json.NewEncoder(os.Stdout).Encode(sandbox.Detect(exe))
		return
	case len(args) >= 4 && args[0] == "--policy" && args[2] == "--":
		p, err := sandbox.DecodePolicy(args[1])
		if err != nil {
			fail(err)
		}
		fail(sandbox.Enforce(p, args[3:], os.Environ(), report))
	default:
		fail(fmt.Errorf("usage: demiurge-sandbox --policy JSON -- PROGRAM [ARGS...]"))
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "demiurge-sandbox: %v\n", err)
	os.Exit(exitCannotSandbox)
}
