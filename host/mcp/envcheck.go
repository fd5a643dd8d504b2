package mcp

import (
	"fmt"

	"demiurge.dev/host/core"
	"demiurge.dev/host/policy"
)

// refuseExecControlEnv moves every server whose manifest env sets a
// variable that steers how programs are loaded or run (LD_PRELOAD,
// BASH_ENV, NODE_OPTIONS, PYTHONPATH, PYTHONSTARTUP and the rest the
// terminal refuses) to the errors: such a value makes the approved
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
	}
	return nil
}
