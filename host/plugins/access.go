package plugins

import (
	"strings"

	"demiurge.dev/shared/toolsetv1"
)

// Access is what a toolset plugin installed by path is confined to
// beyond reading its workspace: what its tools declared when `plugins
// install` described it (the install record keeps it, beside the sha256
// it was declared for). A closed world: a plugin whose record is missing,
// unreadable or for another binary gets neither.
type Access struct {
	// WorkspaceWrite: some tool writes (effect write or exec, a path
	// subject it does not declare read-only, an fs.write capability).
	WorkspaceWrite bool `json:"workspace_write"`
	// Network: some tool reaches the network (effect network, a URL
	// subject, a network capability); it then gets the host's egress
	// proxy, as network-mode commands do.
	Network bool `json:"network"`
}

// DeclaredAccess is what tools declare they need.
func DeclaredAccess(tools []*toolsetv1.ToolSpec) Access {
	var a Access
	for _, t := range tools {
		switch t.GetEffect() {
		case toolsetv1.Effect_EFFECT_WRITE, toolsetv1.Effect_EFFECT_EXEC:
			a.WorkspaceWrite = true
		case toolsetv1.Effect_EFFECT_NETWORK:
			a.Network = true
		}
		for _, s := range t.GetSubjects() {
			// Anything but an explicit read is a write, as the host's
			// approval takes it.
			if p := s.GetPath(); p != nil && p.GetAccess() != toolsetv1.Access_ACCESS_READ {
				a.WorkspaceWrite = true
			}
			if s.GetUrl() != nil {
				a.Network = true
			}
		}
		for _, c := range append([]string{t.GetMetadata().GetCapability()}, t.GetMetadata().GetCapabilities()...) {
			switch {
			case strings.HasPrefix(c, "fs.write"):
				a.WorkspaceWrite = true
			case strings.HasPrefix(c, "network"), strings.HasPrefix(c, "net."):
				a.Network = true
			}
		}
	}
	return a
}

// Exceeds says what a declares that the grant g does not give ("" when
// nothing).
func (a Access) Exceeds(g Access) string {
	var more []string
	if a.WorkspaceWrite && !g.WorkspaceWrite {
		more = append(more, "writing the workspace")
	}
	if a.Network && !g.Network {
		more = append(more, "the network")
	}
	return strings.Join(more, " and ")
}

// String says it for `plugins list`.
func (a Access) String() string {
	s := "reads the workspace but its sensitive files (.env, keys)"
	if a.WorkspaceWrite {
		s = "reads and writes the workspace (never git's configuration and hooks, the clients' configuration, the core or the host's own files)"
	}
	s += " and the system's programs and libraries; no state directory, no home outside the workspace; "
	if a.Network {
		return s + "network only through the host's egress proxy (public addresses)"
	}
	return s + "no network"
}
