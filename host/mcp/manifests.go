package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"sync"

	"demiurge.dev/host/core"
	"demiurge.dev/shared/fileid"
)

// Manifests reads a core's MCP manifests each turn without parsing again
// what has not changed: a file is parsed anew only when its device, inode,
// size, modification or change time differ from the last read.
type Manifests struct {
	mu    sync.Mutex
	cache map[string]cachedManifest
}

type cachedManifest struct {
	id     fileid.ID
	server core.MCPServer
	err    *core.LoadError
}

// Load is core.LoadMCPServers with the cache.
func (m *Manifests) Load(root string) ([]core.MCPServer, []core.MCPManifestError) {
	if root == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return core.LoadMCPServers(root) // its error, with its wording
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.cache == nil {
		m.cache = map[string]cachedManifest{}
	}
	var servers []core.MCPServer
	var errs []core.MCPManifestError
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		name := e.Name()
		id, isYAML := strings.CutSuffix(name, ".yaml")
		if !isYAML || len(servers)+len(errs) >= core.MaxMCPServers {
			// The rare cases (.yml, too many) take the uncached path.
			if strings.HasSuffix(name, ".yml") || isYAML {
				return core.LoadMCPServers(root)
			}
			continue
		}
		file := filepath.Join(root, name)
		seen[file] = true
		fid, ok := statID(file)
		c, hit := m.cache[file]
		if !ok || !hit || c.id != fid {
			c = cachedManifest{id: fid}
			c.server, c.err = core.LoadMCPServer(file)
			if ok {
				m.cache[file] = c
			} else {
				delete(m.cache, file)
			}
		}
		if c.err != nil {
			errs = append(errs, core.MCPManifestError{ID: id, Err: c.err})
			continue
		}
		servers = append(servers, c.server)
	}
	for f := range m.cache {
		if !seen[f] {
			delete(m.cache, f)
		}
	}
	return servers, errs
}

func statID(path string) (fileid.ID, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileid.ID{}, false
	}
	return fileid.FromInfo(fi)
}
