package main

import (
	"os"
	"path/filepath"

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
