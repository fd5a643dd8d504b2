// Package catalogsnap keeps a snapshot of what a full host resolved its
// catalog from (the plugins' sources, their warnings, the fingerprint),
// keyed by every input that determined it, so that the tools-list
// launcher can answer `demiurge tools list` without starting the full
// host: it links no gRPC and no JSON Schema library.
//
// A snapshot is never stale: the key names the host binary, the core's
// revision and overrides, and every plugin candidate's path, recorded
// checksum, size and modification time; a snapshot whose key differs from
// the one the reader computes is a miss. Cores whose tools depend on
// anything else (MCP servers, authored tools in slots) get no snapshot.
package catalogsnap

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"demiurge.dev/host/core"
	"demiurge.dev/host/plugins/disk"
)

// FormatVersion changes whenever the snapshot's form or meaning changes,
// so that an old snapshot never matches by accident.
const FormatVersion = 1

// Key is every input that determined a resolved catalog's sources.
type Key struct {
	Format int `json:"format"`
	// Host is the full host binary that resolved the catalog: another
	// build may turn the same Describe answers into other sources.
	Host FileID `json:"host"`
	Core CoreID `json:"core"`
	// Plugins are every discovered candidate, used or not: a new one
	// installed is a miss.
	Plugins []PluginID `json:"plugins"`
}

// FileID identifies a file's content by its stat, as the describe cache
// does; the full host's launch-time checksum check catches what stat
// cannot.
type FileID struct {
	Path     string `json:"path"`
	Size     int64  `json:"size"`
	ModNanos int64  `json:"mod_nanos"`
}

// CoreID is the agent core: agent.yaml's revision and, separately, the
// effective tools.metadata overrides, in case they ever come from more than
// agent.yaml.
type CoreID struct {
	File      string   `json:"file"`
	Dir       string   `json:"dir"`
	Revision  string   `json:"revision"`
	Toolsets  []string `json:"toolsets"`
	Overrides string   `json:"overrides"` // hex sha256 of their JSON
}

// PluginID is one discovered plugin candidate.
type PluginID struct {
	Name     string      `json:"name"`
	Origin   disk.Origin `json:"origin"`
	Recorded string      `json:"recorded"`
	Problem  string      `json:"problem,omitempty"`
	Binary   FileID      `json:"binary"`
}

// Equal reports whether two keys are the same in every field.
func (k Key) Equal(o Key) bool {
	return k.Format == o.Format && k.Host == o.Host &&
		k.Core.File == o.Core.File && k.Core.Dir == o.Core.Dir && k.Core.Revision == o.Core.Revision &&
		slices.Equal(k.Core.Toolsets, o.Core.Toolsets) && k.Core.Overrides == o.Core.Overrides &&
		slices.Equal(k.Plugins, o.Plugins)
}

// NewKey computes the key for a host binary, a loaded core and the plugin
// candidates discovered for it. A candidate that cannot be stat'ed is an
// error: the caller then does without a snapshot.
func NewKey(hostBinary string, c *core.Core, cands []disk.Candidate) (Key, error) {
	host, err := fileID(hostBinary)
	if err != nil {
		return Key{}, err
	}
	overrides, err := json.Marshal(c.Metadata) // map keys are sorted
	if err != nil {
		return Key{}, fmt.Errorf("catalog snapshot: encode overrides: %w", err)
	}
	sum := sha256.Sum256(overrides)
	k := Key{
		Format: FormatVersion, Host: host,
		Core: CoreID{File: c.File, Dir: c.Dir, Revision: c.Revision, Toolsets: slices.Clone(c.Toolsets),
			Overrides: hex.EncodeToString(sum[:])},
	}
	for _, cand := range cands {
		bin, err := fileID(cand.Path)
		if err != nil {
			return Key{}, err
		}
		k.Plugins = append(k.Plugins, PluginID{Name: cand.Name, Origin: cand.Origin, Recorded: cand.Recorded, Problem: cand.Problem, Binary: bin})
	}
	return k, nil
}

func fileID(path string) (FileID, error) {
	if resolved, err := filepath.EvalSymlinks(path); err == nil {
		path = resolved
	}
	st, err := os.Stat(path)
	if err != nil {
		return FileID{}, fmt.Errorf("catalog snapshot: %w", err)
	}
	return FileID{Path: path, Size: st.Size(), ModNanos: st.ModTime().UnixNano()}, nil
}

// Uncacheable says why a core's catalog cannot be snapshot, or "" when it
// can. MCP servers (slots.mcp) list their tools live, and authored tools
// (slots.tools) depend on the slot's files: neither is in the key.
func Uncacheable(c *core.Core) string {
	switch {
	case c.MCPRoot != "":
		return "the core declares MCP servers (slots.mcp), whose tools are listed live"
	case c.ToolsRoot != "":
		return "the core declares authored tools (slots.tools), whose tools depend on the slot's files"
	case c.SkillsRoot != "":
		return "the core has skills, whose tools the host gives their subjects"
	case len(c.Deferred) > 0:
		return "the core defers tools (tools.deferred), which a session activates"
	}
	return ""
}
