package toolhost

import (
	"errors"
	"os"
	"path/filepath"

	"demiurge.dev/host/core"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// sandboxConfig is the OS sandbox of this host's commands: the mode from
// agent.yaml and --sandbox, the helper beside the built-in plugins, and
// the core's own files, which sandboxed commands may not change.
func sandboxConfig(c *core.Core, operator, pluginDir, stateDir, workspace string) (sandboxing.Config, error) {
	mode, err := sandboxing.ResolveMode(c.SandboxMode, operator)
	if err != nil {
		return sandboxing.Config{}, err
	}
	limits, err := sandboxing.LimitsFromEnv(os.Getenv)
	if err != nil {
		return sandboxing.Config{}, err
	}
	eg, err := sandboxing.EgressFromEnv(os.Getenv)
	if err != nil {
		return sandboxing.Config{}, err
	}
	eg.Core = c.SandboxNetworkAllow
	cfg := sandboxing.Config{
		Egress: eg,
		Mode:   mode, Require: c.SandboxRequire, Helper: sandboxing.HelperPath(pluginDir),
		Explicit:    operator != "" || c.SandboxMode != "",
		Protected:   coreProtected(c, workspace),
		Limits:      limits,
		HostOwned:   sandboxing.HostOwnedPaths(pluginDir, stateDir),
		HostPrivate: sandboxing.HostPrivatePaths(stateDir),
		Toolchains:  sandboxing.ToolchainPaths(os.Getenv("PATH"), os.Getenv(sandboxing.EnvRead)),
	}
	// The helper starts every sandboxed command: one a sandboxed command
	// could have written would confine nothing, so the host refuses to run.
	if cfg.Helper != "" {
		if why := cfg.LaunchRefusal(cfg.Helper, workspace); why != "" {
			return sandboxing.Config{}, errors.New("the sandbox helper is refused: " + why)
		}
		// So does its first stage when it lies beside it (sandbox.Wrap
		// would pass over one it cannot trust; one that is there and
		// fails the host's checks says the directory was tampered with).
		first := filepath.Join(filepath.Dir(cfg.Helper), sandbox.FirstStageName)
		if _, err := os.Lstat(first); err == nil {
			if why := cfg.LaunchRefusal(first, workspace); why != "" {
				return sandboxing.Config{}, errors.New("the sandbox helper's first stage is refused: " + why)
			}
		}
	}
	return cfg, nil
}

// coreProtected lists agent.yaml, the tool and MCP slots and skills of a
// core on disk. A path that does not exist is listed only when the helper
// can hold its parent read-only instead (not when the parent is the
// workspace itself: a mount cannot refuse one missing name).
func coreProtected(c *core.Core, workspace string) []string {
	if c.Dir == "" {
		return nil // the embedded core is not on disk
	}
	if c.Version != nil { // the read-only copy of its commit, and the repository
		return []string{filepath.Dir(filepath.Dir(c.Dir)), c.Version.GitDir}
	}
	var out []string
	for _, p := range []string{c.File, c.ToolsRoot, c.MCPRoot, c.SkillsRoot, slotsRoot(c),
		filepath.Join(c.Dir, "agent", "tools"), filepath.Join(c.Dir, "agent", "mcp"), filepath.Join(c.Dir, "skills")} {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(p); err == nil || filepath.Dir(p) != filepath.Clean(workspace) {
			out = append(out, p)
		}
	}
	return out
}
