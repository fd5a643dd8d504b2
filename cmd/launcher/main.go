// Command launcher is bin/demiurge: it answers `--version` and `help`
// itself, and `demiurge tools list` from the catalog snapshot the full host
// recorded, when that snapshot is warm, hands the commands that only ask a
// running host (`host status`, `tools call`, `audit`, `tasks list|show|
// logs|wait|cancel`, `sessions list|show|resume`, `run`, `mcp serve`, the
// interactive session:
// cmd/internal/frontargs) to the small front end bin/demiurge-front
// (cmd/front), and every other command to the full host, bin/demiurge-host
// beside it, by exec with the same arguments and environment.
//
// It exists for start-up time: the full host links gRPC, go-plugin and a
// JSON Schema validator, whose package initialisation alone takes longer
// than a warm tools list may. This binary links none of them (a test
// checks), only the catalog, the core loader, plugin discovery and the
// snapshot.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"demiurge.dev/cmd/internal/frontargs"
)

// HostBinary is the full host's file name, beside the launcher.
const HostBinary = "demiurge-host"

// FrontBinary is the small front end's (cmd/front), beside the launcher.
const FrontBinary = "demiurge-front"

func main() {
	if answerSelf(os.Args[1:], os.Stdout) {
		os.Exit(0)
	}
	self, err := executableDir()
	if err != nil {
		fmt.Fprintf(os.Stderr, "demiurge: cannot find the launcher's own directory: %v\n", err)
		os.Exit(1)
	}
	host := filepath.Join(self, HostBinary)
	if _, ok := frontargs.Parse(os.Args[1:], environ); ok {
		// Only a running host's answer: the small front end asks it (and
		// execs the full host itself when there is none). Without the
		// front end beside it, the full host answers.
		_ = syscall.Exec(filepath.Join(self, FrontBinary), os.Args, os.Environ())
	}
	if req, ok := parseList(os.Args[1:], environ); ok {
		if code, answered := listFromSnapshot(req, self, host, os.Stdout, os.Stderr); answered {
			os.Exit(code)
		}
	}
	err = execHost(host, os.Args, os.Environ())
	fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
	os.Exit(1)
}

// executableDir is the symlink-resolved directory of this binary, where
// the full host and the built-in plugins are.
func executableDir() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Dir(exe), nil
}
