package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/host/catalogsnap"
	"demiurge.dev/host/core"
	"demiurge.dev/host/corerepo/corepath"
	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/plugins/disk"
)

// listFromSnapshot answers a tools list from a warm snapshot, exactly as
// the full host would print it. It reports answered=false, having written
// nothing, whenever it is not sure the host would answer the same: a cold
// or stale snapshot, a core or workspace the host would refuse, flags it
// would reject. The host then answers.
func listFromSnapshot(req listRequest, selfDir, host string, stdout, stderr io.Writer) (code int, answered bool) {
	mode, err := catalog.ParseDisplayMode(req.display)
	if err != nil {
		return 0, false
	}
	var provider catalog.Provider
	if req.provider != "" {
		if provider, err = catalog.ParseProvider(req.provider); err != nil {
			return 0, false
		}
	}
	state, ok := stateDir(req.state)
	if !ok {
		return 0, false
	}
	c, err := loadCore(req.core, state)
	if err != nil || catalogsnap.Uncacheable(c) != "" {
		return 0, false
	}
	if _, err := os.Lstat(core.UserSkillsDir(state)); c.IsDefault() && err == nil {
		return 0, false // the embedded core has the user's skills: the host decides
	}
	if !workspaceAccepted(req.workspace, c) {
		return 0, false
	}
	builtin := req.pluginDir
	if builtin == "" {
		builtin = selfDir
	}
	// The directories and their order are toolhost.Open's: built-in,
	// installed, then the active core's provider packages (installing one
	// must make the old snapshot a miss).
	pkgs, err := installed.ForCore(state, c)
	if err != nil {
		return 0, false
	}
	cands, err := disk.Discover(append([]disk.Dir{
		{Path: builtin, Origin: disk.OriginBuiltin},
		{Path: filepath.Join(state, "plugins"), Origin: disk.OriginInstalled},
	}, pkgs.PluginDirs()...))
	if err != nil {
		return 0, false
	}
	key, err := catalogsnap.NewKey(host, c, cands)
	if err != nil {
		return 0, false
	}
	snap, ok := catalogsnap.Load(state, key)
	if !ok {
		return 0, false
	}
	cat, err := catalog.Resolve(snap.CatalogSources(), c.Metadata)
	if err != nil || cat.Fingerprint() != snap.Fingerprint {
		return 0, false
	}
	cat = cat.Callable(catalog.Grants(c.Capabilities)) // as the host's session does
	// The host's warnings: the plugins' (recorded), then the packages'
	// problems (read now, as the host reads them on every start).
	cat.WriteNotes(stderr, append(append([]string(nil), snap.Warnings...), pkgs.Problems...))
	out := bufio.NewWriterSize(stdout, 64<<10)
	err = cat.WriteList(out, catalog.ListOptions{Mode: mode, Provider: provider, JSON: req.json})
	if err == nil {
		err = out.Flush()
	}
	if err != nil {
		io.WriteString(stderr, "demiurge: "+err.Error()+"\n")
		return 1, true
	}
	return 0, true
}

// stateDir resolves the state directory as the full CLI does.
func stateDir(flag string) (string, bool) {
	dir, err := frontargs.StateDir(flag)
	return dir, err == nil
}

// loadCore loads the core the host would run: --core DIR, else the
// default core of the repository's live commit, from the read-only copy
// the host made of it. A packed live ref or a missing copy is an error:
// the host then answers (and makes the copy).
func loadCore(dir, state string) (*core.Core, error) {
	if dir != "" {
		return core.Load(dir)
	}
	commit, ok := corepath.ReadLive(state)
	if !ok {
		return nil, os.ErrNotExist
	}
	return core.LoadVersioned(corepath.CoreDir(state, commit, core.DefaultID),
		core.Version{GitDir: corepath.GitDir(state), ID: core.DefaultID, Commit: commit})
}

// workspaceAccepted reports whether the full host would accept the
// session's workspace (the flag's, else the core's, else the current
// directory): an existing directory whose cleaned path is absolute.
func workspaceAccepted(flag string, c *core.Core) bool {
	ws := flag
	if ws == "" {
		ws = c.Workspace
	}
	if ws == "" {
		var err error
		if ws, err = os.Getwd(); err != nil {
			return false
		}
	}
	st, err := os.Stat(ws)
	if err != nil || !st.IsDir() {
		return false
	}
	clean := filepath.Clean(ws)
	return filepath.IsAbs(clean) && !strings.ContainsRune(clean, 0)
}
