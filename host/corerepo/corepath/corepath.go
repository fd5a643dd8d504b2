// Package corepath names the places of the core repository under a state
// directory and reads its live ref without git: the launcher, which links
// no git library, uses it to find the core the host runs.
package corepath

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Dir is the core repository's home under a state directory.
func Dir(stateDir string) string { return filepath.Join(stateDir, "core") }

// GitDir is the bare repository.
func GitDir(stateDir string) string { return filepath.Join(Dir(stateDir), "repo.git") }

// TreesDir holds the read-only copies of commits, one directory per id.
func TreesDir(stateDir string) string { return filepath.Join(Dir(stateDir), "trees") }

// TreeDir is the read-only copy of one commit (the directory holding
// agents/); it exists only complete, since it is renamed into place.
func TreeDir(stateDir, commit string) string { return filepath.Join(TreesDir(stateDir), commit) }

// CoreDir is one core's directory in the read-only copy of a commit.
func CoreDir(stateDir, commit, id string) string {
	return filepath.Join(TreeDir(stateDir, commit), "agents", id)
}

var commitID = regexp.MustCompile(`^[0-9a-f]{40}$`)

// ReadLive reads refs/demiurge/live when it is a loose ref file holding a
// commit id; ok is false otherwise (no repository, a packed or symbolic
// ref), and the caller asks the repository itself.
func ReadLive(stateDir string) (commit string, ok bool) {
	b, err := os.ReadFile(filepath.Join(GitDir(stateDir), "refs", "demiurge", "live"))
	if err != nil {
		return "", false
	}
	s := strings.TrimSuffix(string(b), "\n")
	if !commitID.MatchString(s) {
		return "", false
	}
	return s, true
}
