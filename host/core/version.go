package core

import "strings"

// DefaultID is the core id a host runs from its repository when none is
// named: the embedded default core's place there.
const DefaultID = "default"

// Version says where a core loaded from the core repository comes from.
type Version struct {
	// GitDir is the repository's git directory.
	GitDir string
	// ID is the core's directory name under agents/.
	ID string
	// Commit is the commit id the core was read from; it is also the
	// core's Revision.
	Commit string
}

// LoadVersioned loads the core of a commit's read-only copy (dir is
// agents/<id> in it) and binds it to the commit: its Revision is the
// commit id, so every authority, session allow and catalog snapshot names
// the commit.
func LoadVersioned(dir string, v Version) (*Core, error) {
	c, err := Load(dir)
	if err != nil {
		return nil, err
	}
	c.Version = &v
	c.Revision = v.Commit
	return c, nil
}

// IsDefault reports whether c is the operator's default core: the
// embedded one, or the repository's default core. Such a core is the
// operator's own (the agent cannot write it), so it also uses every
// installed plugin and the user's skills directory.
func (c *Core) IsDefault() bool {
	return c.Dir == "" || c.Version != nil && c.Version.ID == DefaultID
}

// CLIFlags are the flags a command needs to run on c, for hints that name
// a command: "--core DIR" for a plain core directory, "--core-id ID" for
// a repository core other than the default, "" for the default core.
func (c *Core) CLIFlags() string {
	switch {
	case c.Version != nil && c.Version.ID != DefaultID:
		return "--core-id " + shellWord(c.Version.ID)
	case c.Version == nil && c.Dir != "":
		return "--core " + shellWord(c.Dir)
	}
	return ""
}

// Command is "demiurge" with c's CLIFlags and then args: a command line
// a hint can print for the operator to paste.
func (c *Core) Command(args string) string {
	if f := c.CLIFlags(); f != "" {
		return "demiurge " + f + " " + args
	}
	return "demiurge " + args
}

// shellWord quotes s for a POSIX shell when it holds anything but plain
// path characters.
func shellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
