package toolhost

import (
	"errors"
	"fmt"
	"os"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/corerepo/corepath"
)

// loadCore loads the core the host runs: a plain directory (--core DIR,
// unversioned), else core id (default: "default") of the core repository's
// live commit under the state directory, which is created from the
// embedded default core on first use. The core is read from the commit's
// read-only copy, never from a work tree; the copy is marked in use
// (corepath.Use) before it is read, and stays marked until release is
// called (the host's Close), so that no collection removes it under the
// host's slots and tools.
func loadCore(dir, id, stateDir string) (_ *core.Core, release func(), _ error) {
	if dir != "" {
		if id != "" {
			return nil, nil, errors.New("--core-id picks a core of the core repository and --core names a plain directory: give one of them")
		}
		c, err := core.Load(dir)
		return c, func() {}, err
	}
	if id == "" {
		id = core.DefaultID
	}
	// The copy of live's tree exists only complete (it is renamed into
	// place), so finding the core in it needs no git at all.
	if commit, ok := corepath.ReadLive(stateDir); ok {
		release, err := corepath.Use(stateDir, commit)
		if err != nil {
			return nil, nil, err
		}
		dir := corepath.CoreDir(stateDir, commit, id)
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			c, err := core.LoadVersioned(dir, core.Version{GitDir: corepath.GitDir(stateDir), ID: id, Commit: commit})
			if err != nil {
				release()
				return nil, nil, err
			}
			return c, release, nil
		}
		release()
	}
	r, err := corerepo.OpenOrInit(stateDir)
	if err != nil {
		return nil, nil, err
	}
	commit, err := r.Resolve("live")
	if err != nil {
		return nil, nil, err
	}
	release, err = corepath.Use(stateDir, commit)
	if err != nil {
		return nil, nil, err
	}
	c, err := loadCommit(r, commit, id)
	if err != nil {
		release()
		return nil, nil, err
	}
	return c, release, nil
}

// LoadFromRepo loads core id of revision rev of the repository. The copy
// it reads is not marked in use: a caller that keeps running from it
// marks it first (corepath.Use), as the host does.
func LoadFromRepo(r *corerepo.Repo, rev, id string) (*core.Core, error) {
	commit, err := r.Resolve(rev)
	if err != nil {
		return nil, err
	}
	return loadCommit(r, commit, id)
}

func loadCommit(r *corerepo.Repo, commit, id string) (*core.Core, error) {
	ids, err := r.Cores(commit)
	if err != nil {
		return nil, err
	}
	known := false
	for _, k := range ids {
		known = known || k == id
	}
	if !known {
		msg := fmt.Sprintf("core %q does not exist in the core repository at %s", id, shortID(commit))
		if s := catalog.Suggest(id, ids); s != "" {
			msg += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return nil, fmt.Errorf("%s; its cores: %v (`demiurge core status`)", msg, ids)
	}
	if _, err := r.Materialize(commit); err != nil {
		return nil, err
	}
	return core.LoadVersioned(corerepo.CoreDir(r.StateDir, commit, id), core.Version{GitDir: r.GitDir(), ID: id, Commit: commit})
}

func shortID(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
