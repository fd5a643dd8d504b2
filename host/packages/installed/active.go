package installed

import (
	"fmt"

	"demiurge.dev/host/core"
	"demiurge.dev/host/plugins/disk"
)

// Active are the packages installed in the running core that are in a
// state to run.
type Active struct {
	Packages []Locked
	// Problems say which installed packages were left out, and why.
	Problems []string
}

// ForCore reads the lock file for core c. A package that fails Check is
// left out with a problem.
func ForCore(stateDir string, c *core.Core) (*Active, error) {
	a := &Active{}
	t := TargetFor(stateDir, c)
	lock, err := Read(stateDir)
	if err != nil {
		return nil, err
	}
	for _, p := range lock.Packages {
		if p.Core != t.Key {
			continue
		}
		if problem := Check(p); problem != "" {
			a.Problems = append(a.Problems, fmt.Sprintf("package %s is left out: %s", p.Name, problem))
			continue
		}
		a.Packages = append(a.Packages, p)
	}
	return a, nil
}

// PluginDirs are the directories of the active packages' plugins, for
// plugin discovery as installed toolsets.
func (a *Active) PluginDirs() []disk.Dir {
	if a == nil {
		return nil
	}
	var out []disk.Dir
	for _, p := range a.Packages {
		out = append(out, disk.Dir{Path: p.PluginDir, Origin: disk.OriginInstalled, Package: p.Name, SHA256: p.BinarySHA256, Egress: p.Egress})
	}
	return out
}

// Package returns the active package serving toolset name.
func (a *Active) Package(name string) (Locked, bool) {
	if a == nil {
		return Locked{}, false
	}
	for _, p := range a.Packages {
		if p.Name == name {
			return p, true
		}
	}
	return Locked{}, false
}
