package plugins

import (
	"os"

	"demiurge.dev/host/egress"
)

// SetWorkDir names the directory plugins started from now on run in: the
// workspace root, so that a plugin opening a relative path argument as
// given reaches the file the host resolved against that root and checked,
// not one beside wherever the host was started.
func (m *Manager) SetWorkDir(dir string) {
	m.dir.Store(&dir)
}

// SetHeld names what of its workspace a toolset plugin installed by path
// that writes the workspace finds read-only there, beside what
// sandboxing.WorkspaceProtected lists at its start: the core's files and
// the host's own (its binary's and plugins' directories, the host's
// configuration), the lists a command's sandbox holds (sandboxing.Config's
// Protected and HostOwned). Without them such a plugin rewrote agent.yaml
// or, with `make run` in a checkout, the host's bin/ inside the workspace.
func (m *Manager) SetHeld(paths []string) {
	m.held.Store(&paths)
}

// Held is SetHeld's list.
func (m *Manager) Held() []string {
	if h := m.held.Load(); h != nil {
		return *h
	}
	return nil
}

// workDir is the SetWorkDir directory; before a workspace is known (a
// plugin install's trial start) the host-owned home, else the root: never
// the directory the host happens to run in.
func (m *Manager) workDir(home string) string {
	if d := m.dir.Load(); d != nil && *d != "" {
		return *d
	}
	if home != "" && os.MkdirAll(home, 0o700) == nil {
		return home
	}
	return "/"
}

// SetLaunchCheck names what decides, before every start, whether a
// plugin's binary may run (the host passes the sandbox's LaunchRefusal:
// nothing a sandboxed command could have written is started).
func (m *Manager) SetLaunchCheck(refuse func(path string) string) {
	m.refuse.Store(&refuse)
}

// EgressRecord receives each connection a confined plugin made through
// its egress proxy, when it ends (allowed, refused or failed): the
// plugin's name, its package ("" for a toolset plugin installed by
// path) and the proxy's event.
type EgressRecord func(plugin, pkg string, ev egress.Event)

// SetEgressAudit names where plugins started from now on record their
// connections (the host appends an audit event for each); without it a
// refused or failed one is only a warning in the host's log.
func (m *Manager) SetEgressAudit(record EgressRecord) {
	m.egressAudit.Store(&record)
}
