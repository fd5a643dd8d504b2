package packages

import (
	"context"
	"path/filepath"
	"time"

	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/runtime"
)

// Audit events of install and remove: what was placed or taken away, by
// name, version, checksums and grants.
const (
	EventKindPackageInstall = "package.install"
	EventKindPackageRemove  = "package.remove"
)

// audit appends to m.Events, or else to the state directory's store,
// opened for this one event (a running host holding it makes install wait,
// then fail, rather than go unrecorded).
func (m *Manager) audit(kind string, data map[string]any) error {
	var sink *runtime.Store
	var err error
	if m.Events != nil {
		sink, err = m.Events()
	} else {
		sink, err = runtime.Open(filepath.Join(m.StateDir, "demiurge.db"))
		if err == nil {
			defer sink.Close()
		}
	}
	if err != nil {
		return err
	}
	body, err := runtime.MarshalData(data)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = sink.Append(ctx, runtime.Event{Kind: kind, Data: body})
	return err
}

func installedData(p installed.Locked) map[string]any {
	secrets := make([]any, 0, len(p.Secrets))
	for _, s := range p.Secrets {
		tools := make([]any, 0, len(s.Tools))
		for _, t := range s.Tools {
			tools = append(tools, t)
		}
		secrets = append(secrets, map[string]any{"env": s.Env, "target": s.Target, "tools": tools})
	}
	return map[string]any{
		"outcome": "ok", "package": p.Name, "version": p.Version, "core": p.Core, "slot": p.Slot,
		"slot_path": p.SlotPath, "plugin_dir": p.PluginDir, "sha256": p.SHA256, "binary_sha256": p.BinarySHA256,
		"tools": anyList(p.Tools), "grants": anyList(p.Grants), "secrets": secrets, "source": p.Source,
	}
}

// auditData is a refused install: what it was, and why not.
func auditData(name, version, sum, source string, refused error) map[string]any {
	return map[string]any{"outcome": "refused", "package": name, "version": version, "sha256": sum, "source": source, "error": refused.Error()}
}

func anyList(l []string) []any {
	out := make([]any, 0, len(l))
	for _, s := range l {
		out = append(out, s)
	}
	return out
}
