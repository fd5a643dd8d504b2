package mcp

import (
	"fmt"

	"demiurge.dev/host/core"
	"demiurge.dev/host/policy"
)

// refuseExecControlEnv moves every server whose manifest env sets a
// variable that steers how programs are loaded or run (LD_PRELOAD,
// BASH_ENV, NODE_OPTIONS, PYTHONPATH, PYTHONSTARTUP and the rest the
// terminal refuses), or PATH, HOME or another steering variable
// (policy.SteeringEnvKey), to the errors: such a value makes the approved
// program run code nobody approved, and the card shows env by name only.
func refuseExecControlEnv(servers []core.MCPServer, errs []core.MCPManifestError) ([]core.MCPServer, []core.MCPManifestError) {
	kept := servers[:0:0]
	for _, s := range servers {
		if lerr := execControlEnv(s); lerr != nil {
			errs = append(errs, core.MCPManifestError{ID: s.ID, Err: lerr})
			continue
		}
		kept = append(kept, s)
	}
	return kept, errs
}

func execControlEnv(s core.MCPServer) *core.LoadError {
	for _, kv := range s.Env {
		if policy.ExecControlEnvKey(kv.Key) {
			return &core.LoadError{File: s.File, Line: s.EnvLines[kv.Key], Field: "env." + kv.Key, Msg: fmt.Sprintf(
				"%s controls how programs are loaded or run (the dynamic loader, a shell or a language runtime), so an MCP server may not be given it; remove it from env", kv.Key)}
		}
		// PATH, HOME and the variables that point a program at a
		// configuration, a search path, another program or extra options:
		// PATH=./bin makes the approved /bin/sh -c "exec srv" (or npx's
		// "#!/usr/bin/env node") run a workspace file, HOME a workspace
		// .gitconfig or .npmrc. The card shows env by name only, so the
		// operator cannot see where such a value points.
		if policy.SteeringEnvKey(kv.Key) {
			return &core.LoadError{File: s.File, Line: s.EnvLines[kv.Key], Field: "env." + kv.Key, Msg: fmt.Sprintf(
				"%s points programs at a search path, a configuration, a program or extra options, and the connect card shows env by name only, so an MCP server may not be given it; pass the value as an argument, or set it in the command itself (command: /bin/sh, args: [-c, \"NAME=value exec server\"]), which the card shows", kv.Key)}
		}
	}
	return nil
}
