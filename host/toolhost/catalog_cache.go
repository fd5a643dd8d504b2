package toolhost

import (
	"os"
	"slices"
	"strings"
	"sync"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/plugins"
	"demiurge.dev/shared/fileid"
)

// catalogCache is a session's last resolved catalog and the identity of
// everything it was resolved from. A model step resolves the catalog
// afresh (a tool may have been activated, a plugin replaced), but nearly
// always from the same inputs: then the last catalog is handed out again
// instead of describing every plugin, resolving, fingerprinting and
// recording the launcher's snapshot once more.
type catalogCache struct {
	mu       sync.Mutex
	key      *catalogKey
	cat      *catalog.Catalog
	warnings []string
}

// catalogKey is what a session's catalog depends on, read cheaply: the
// core (its revision), the plugin manager and the installed packages (one
// set per host), each plugin candidate's file identity (device, inode,
// size, modification and change time: a replaced or rewritten binary
// changes it; the launch-time checksum check still guards content), and
// the session's activated deferred tools; for a core with MCP servers,
// the session's MCP state (mcp.Pool.Settled: the declarations and each
// connection's build of its tools; a pool that would connect, ask or
// retry anything is not cached); for a plain --core DIR's authored tools,
// the fingerprint of its tools root (every file's path, mode, size and
// modification time, every tool.yaml's content).
type catalogKey struct {
	core        *core.Core
	revision    string
	plugins     *plugins.Manager
	packages    *installed.Active
	files       []fileIdentity
	activations string
	mcp         string
	authored    string
}

type fileIdentity struct {
	path string
	id   fileid.ID
}

func (k *catalogKey) equal(o *catalogKey) bool {
	return k != nil && o != nil && k.core == o.core && k.revision == o.revision && k.plugins == o.plugins &&
		k.packages == o.packages && k.activations == o.activations && slices.Equal(k.files, o.files) &&
		k.mcp == o.mcp && k.authored == o.authored
}

// catalogKeyFor is s's catalog key now, or nil when its catalog is not
// cacheable or a plugin file cannot be read.
func (h *Host) catalogKeyFor(s *Session) *catalogKey {
	k := &catalogKey{core: h.Core, revision: h.Core.Revision, plugins: h.Plugins, packages: h.Packages}
	if h.Core.MCPRoot != "" {
		stamp, settled := h.pool(s).Settled(h.mcpTurn(s))
		if !settled {
			return nil
		}
		k.mcp = stamp
	}
	// A versioned core's authored tools are files of its commit's
	// read-only copy, so the revision (the commit id) covers them; a
	// plain --core DIR's may change under the host at any time.
	if h.Core.ToolsRoot != "" && h.Core.Version == nil {
		k.authored = toolsRootFingerprint(h.Core.ToolsRoot)
		if strings.HasPrefix(k.authored, "uncacheable:") {
			return nil
		}
	}
	for _, c := range h.Plugins.Candidates() {
		id, ok := identity(c.Path)
		if !ok {
			return nil
		}
		k.files = append(k.files, id)
	}
	if d, err := s.activeTools(); err == nil {
		k.activations = strings.Join(d.Active(), "\n")
	}
	return k
}

func identity(path string) (fileIdentity, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileIdentity{}, false
	}
	id, ok := fileid.FromInfo(fi)
	return fileIdentity{path: path, id: id}, ok
}

// lookup is the cached catalog when key matches.
func (c *catalogCache) lookup(key *catalogKey) (*catalog.Catalog, []string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !key.equal(c.key) {
		return nil, nil, false
	}
	return c.cat, c.warnings, true
}

// clear forgets the cached catalog (the session's tools changed).
func (c *catalogCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.cat, c.warnings = nil, nil, nil
}

func (c *catalogCache) store(key *catalogKey, cat *catalog.Catalog, warnings []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.cat, c.warnings = key, cat, warnings
}

// sharedCatalog is the host's last catalog of a fresh root session. A
// one-shot call through the long-lived host opens a fresh session each
// time, whose own cache starts empty; with the same inputs and the same
// capabilities its catalog is the same, so it is resolved once per host
// and shared (BENCHMARKS.md, issue 24). Only a catalog without deferred
// tools is shared: a disclosure holds one session's activations.
type sharedCatalog struct {
	mu       sync.Mutex
	key      *freshKey
	cat      *catalog.Catalog
	warnings []string
}

// freshKey is a catalogKey with the capabilities the catalog was narrowed
// to (Callable).
type freshKey struct {
	catalogKey
	capabilities string
}

// freshKeyFor is s's shared-catalog key: nil for a child (its selection
// narrows the catalog), a session with activations or MCP servers, or an
// uncacheable catalog.
func (h *Host) freshKeyFor(s *Session, key *catalogKey) *freshKey {
	// MCP connections are the session's own.
	// So are an editor's tools.
	if key == nil || s.parent != nil || s.tools != nil || key.activations != "" || key.mcp != "" || s.theEditor() != nil {
		return nil
	}
	return &freshKey{catalogKey: *key, capabilities: strings.Join(s.authority.Capabilities.List(), "\n")}
}

func (c *sharedCatalog) lookup(key *freshKey) (*catalog.Catalog, []string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.key == nil || c.key.capabilities != key.capabilities || !key.catalogKey.equal(&c.key.catalogKey) {
		return nil, nil, false
	}
	return c.cat, c.warnings, true
}

func (c *sharedCatalog) store(key *freshKey, cat *catalog.Catalog, warnings []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.key, c.cat, c.warnings = key, cat, warnings
}
