package corerepo

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	git "github.com/go-git/go-git/v5"
)

//go:embed seed
var seedFS embed.FS

// Seed is the tree of the first commit a repository gets when no other is
// given: the embedded default core as agents/default.
func Seed() fs.FS {
	s, err := fs.Sub(seedFS, "seed")
	if err != nil {
		panic(err) // a compiled-in path
	}
	return s
}

// ErrExists is returned by Init when the state directory has a repository.
var ErrExists = errors.New("a core repository exists already")

// Init creates the repository under stateDir with one commit of tree (an
// fs.FS whose root holds agents/), and points live at it. It is created
// beside its final place and renamed into it, so a second host starting
// at the same time either wins or gets ErrExists, never half a repository.
func Init(stateDir string, tree fs.FS, msg string) (*Repo, string, error) {
	home := Dir(stateDir)
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, "", fmt.Errorf("core repository: %w", err)
	}
	if _, err := os.Stat(GitDir(stateDir)); err == nil {
		return nil, "", fmt.Errorf("%w at %s", ErrExists, GitDir(stateDir))
	}
	tmp, err := os.MkdirTemp(home, ".init-")
	if err != nil {
		return nil, "", fmt.Errorf("core repository: %w", err)
	}
	defer os.RemoveAll(tmp)
	g, err := git.PlainInit(filepath.Join(tmp, "repo.git"), true)
	if err != nil {
		return nil, "", fmt.Errorf("core repository: %w", err)
	}
	staged := &Repo{git: g}
	if err := CheckLayout(tree); err != nil {
		return nil, "", err
	}
	w := &treeWriter{r: staged}
	th, err := w.writeTree(tree, ".")
	if err != nil {
		return nil, "", err
	}
	commit, err := staged.writeCommit(th, "", msg)
	if err != nil {
		return nil, "", err
	}
	// No one else can see the staged repository: plain writes suffice.
	refDir := filepath.Join(tmp, "repo.git", "refs", "demiurge")
	if err := os.MkdirAll(refDir, 0o700); err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(filepath.Join(refDir, "live"), []byte(commit+"\n"), 0o600); err != nil {
		return nil, "", err
	}
	if err := os.Rename(filepath.Join(tmp, "repo.git"), GitDir(stateDir)); err != nil {
		if _, serr := os.Stat(GitDir(stateDir)); serr == nil {
			return nil, "", fmt.Errorf("%w at %s", ErrExists, GitDir(stateDir))
		}
		return nil, "", fmt.Errorf("core repository: %w", err)
	}
	r, err := Open(stateDir)
	if err != nil {
		return nil, "", err
	}
	return r, commit, nil
}

// OpenOrInit opens the repository under stateDir, creating it from the
// seed on first use.
func OpenOrInit(stateDir string) (*Repo, error) {
	r, err := Open(stateDir)
	if !errors.Is(err, ErrNoRepository) {
		return r, err
	}
	r, _, err = Init(stateDir, Seed(), "the embedded default core")
	if errors.Is(err, ErrExists) {
		return Open(stateDir) // another host created it first
	}
	return r, err
}

// CheckLayout refuses a tree without agents/<id>/ directories, or with a
// core id that could not be named.
func CheckLayout(tree fs.FS) error {
	ents, err := fs.ReadDir(tree, AgentsDir)
	if err != nil {
		return fmt.Errorf("the tree has no %s/ directory: a core repository holds one directory per core, %s/<core_id>/agent.yaml", AgentsDir, AgentsDir)
	}
	n := 0
	for _, e := range ents {
		if !e.IsDir() {
			return fmt.Errorf("%s/%s: only core directories belong in %s/", AgentsDir, e.Name(), AgentsDir)
		}
		if err := ValidCoreID(e.Name()); err != nil {
			return fmt.Errorf("%s/%s: %v", AgentsDir, e.Name(), err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s/ is empty: a core repository holds at least one core", AgentsDir)
	}
	return nil
}
