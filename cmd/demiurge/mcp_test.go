package main

import (
	"bufio"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"

	"demiurge.dev/host/mcp/mcptest"
)

// mcpScriptEnv gives the scripts their MCP servers: $WORK/mcpbin holds the
// Go test servers, $WORK/node_modules the npm reference servers. When the
// reference servers are installed, the program have-mcp-reference-servers
// is on PATH, so that a script can say
//
//	[!exec:have-mcp-reference-servers] skip
//
// They are missing only locally with DEMIURGE_TEST_MCP_NODE_MODULES unset;
// when the variable names a directory without them (CI), every script
// fails.
func mcpScriptEnv(env *testscript.Env) error {
	bins, err := mcptest.BuildServers()
	if err != nil {
		return err
	}
	if err := os.Symlink(bins, filepath.Join(env.WorkDir, "mcpbin")); err != nil {
		return err
	}
	dir, explicit, err := mcptest.NodeModulesDir()
	switch {
	case err != nil && explicit:
		return err
	case err != nil:
		return nil
	}
	if err := os.Symlink(dir, filepath.Join(env.WorkDir, "node_modules")); err != nil {
		return err
	}
	cond := filepath.Join(env.WorkDir, ".mcpcond")
	if err := os.MkdirAll(cond, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(cond, "have-mcp-reference-servers"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		return err
	}
	env.Setenv("PATH", cond+string(os.PathListSeparator)+env.Getenv("PATH"))
	return nil
}

// mcpScriptCmds are the scripts' MCP commands:
//
//	mcphttp SERVER URLVAR ADDRVAR
//
// starts the Go test server SERVER (of $WORK/mcpbin) as streamable HTTP on
// a free loopback port, sets $URLVAR to its URL and $ADDRVAR to its
// address:port, and stops it when the script ends.
func mcpScriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	return map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"mcphttp": func(ts *testscript.TestScript, neg bool, args []string) {
			if neg || len(args) != 3 {
				ts.Fatalf("usage: mcphttp SERVER URLVAR ADDRVAR")
			}
			cmd := exec.Command(filepath.Join(ts.Getenv("WORK"), "mcpbin", args[0]), "-http", "127.0.0.1:0")
			out, err := cmd.StdoutPipe()
			ts.Check(err)
			ts.Check(cmd.Start())
			ts.Defer(func() { cmd.Process.Kill(); cmd.Wait() })
			line, err := bufio.NewReader(out).ReadString('\n')
			ts.Check(err)
			u, err := url.Parse(strings.TrimSpace(line))
			ts.Check(err)
			ts.Setenv(args[1], u.String())
			ts.Setenv(args[2], u.Host)
		},
	}
}
