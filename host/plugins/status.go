package plugins

import (
	"errors"
	"fmt"
	"strings"

	"demiurge.dev/shared/sandbox"
)

// Status is one plugin's state for `plugins list`.
type Status struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Origin   Origin `json:"origin"`
	Version  string `json:"version,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	SHA256   string `json:"sha256,omitempty"`
	Tools    int    `json:"tools"`
	// State is running, stopped, cached, not started, or refused.
	State string `json:"state"`
	PID   int    `json:"pid,omitempty"`
	Error string `json:"error,omitempty"`
	// Confinement says how it runs when the host confines it (an
	// installed package, a plugin installed by path); "" for the host's
	// own toolsets, which run as the host does.
	Confinement string `json:"confinement,omitempty"`
}

// Confinement says how the named plugin runs when the host confines it
// ("" for the host's own toolsets and names it does not know).
func (m *Manager) Confinement(name string) string {
	s, ok := m.byName[name]
	if !ok {
		return ""
	}
	return confinementOf(s.cand)
}

// confinementOf is Status.Confinement.
func confinementOf(c Candidate) string {
	if c.Origin != OriginInstalled {
		return ""
	}
	what, allowed, sw := "a package's plugin", sandbox.PackagesAllowedUnconfined(), EnvAllowUnconfinedPackages
	if c.Package == "" {
		what, allowed, sw = "a plugin installed by path", sandbox.ToolsetsAllowedUnconfined(), EnvAllowUnconfinedToolsets
	}
	rec, recorded := installRecord(c)
	if c.Package == "" && recorded && rec.Unconfined {
		return "UNCONFINED (the operator's choice at install, for this binary's sha256): it runs as the host does, reading and writing what the host can and reaching the network directly; plugins access " + c.Name + " --confined confines it"
	}
	if miss := sandbox.PluginMissing(kernelSupport()); len(miss) > 0 {
		if allowed {
			return "UNCONFINED: the kernel lacks " + strings.Join(miss, ", ") + " and the operator set " + sw + "=1"
		}
		return "refused to start: the kernel cannot confine " + what + " (it lacks " + strings.Join(miss, ", ") + "); " + sw + "=1 runs it unconfined"
	}
	if c.Package != "" {
		return "confined (Landlock, seccomp) as package " + c.Package + "'s: no home, workspace or state; network only through the host's egress proxy to the hosts it declared"
	}
	s := "confined (Landlock, seccomp): " + grantedAccess(c).String()
	switch {
	case !recorded:
		s += " (no install record for this binary: reinstall it with plugins install to grant what its tools declare)"
	case rec.legacy:
		s += " (its install record predates what its tools declare: demiurge plugins access " + c.Name + " records it, or reinstall it)"
	}
	return s
}

// Statuses reports every discovered plugin without starting any.
func (m *Manager) Statuses() []Status {
	var out []Status
	for _, c := range m.cands {
		s := m.byName[c.Name]
		st := Status{Name: c.Name, Path: c.Path, Origin: c.Origin, SHA256: c.Recorded, State: "not started", Confinement: confinementOf(c)}
		s.mu.Lock()
		var d described
		switch {
		case c.Problem != "":
			st.State, st.Error = "refused", c.Problem
		case s.inst != nil && !s.inst.exited():
			st.State, st.PID, d = "running", s.inst.pid, s.inst.desc
		case s.lastErr != nil:
			st.State, st.Error = "refused", s.lastErr.Error()
		default:
			if cached, ok := m.cache.load(cacheKey(c.Recorded, s.input), c.Path); ok {
				st.State, d = "described (cached)", cached
			}
		}
		s.mu.Unlock()
		if d.DescribeResponse != nil {
			st.Version, st.Tools = d.GetVersion(), len(d.GetTools())
			st.Protocol = fmt.Sprintf("%d.%d", d.Protocol, d.GetProtocolMinor())
		} else if rec, ok := installRecord(c); ok {
			// What `plugins install` recorded, while the checksum it
			// recorded still holds.
			st.Version, st.Tools = rec.Version, len(rec.Tools)
			st.Protocol = fmt.Sprintf("%d.%d", rec.Protocol, rec.ProtocolMinor)
		}
		out = append(out, st)
	}
	return out
}

// Verify hashes a plugin binary and compares it with the recorded sum.
func (m *Manager) Verify(name string) (actual string, ok bool, err error) {
	s, err := m.get(name)
	if err != nil {
		return "", false, err
	}
	if s.cand.Problem != "" {
		return "", false, errors.New(s.cand.Problem)
	}
	actual, err = fileSHA256(s.cand.Path)
	if err != nil {
		return "", false, err
	}
	return actual, actual == s.cand.Recorded, nil
}
