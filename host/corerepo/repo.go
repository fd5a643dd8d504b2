package corerepo

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"

	"demiurge.dev/host/corerepo/corepath"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The refs the host reads and moves.
const (
	RefLive     = "refs/demiurge/live"
	RefPrevious = "refs/demiurge/previous"
)

// AgentsDir is the tree's directory of cores: agents/<core_id>/.
const AgentsDir = "agents"

// DefaultCoreID is the id of the core a host runs when none is named.
const DefaultCoreID = "default"

// coreIDPattern is what a core id may be: a directory name that is also a
// safe ref and file name component.
var coreIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// ValidCoreID reports whether id can name a core.
func ValidCoreID(id string) error {
	if !coreIDPattern.MatchString(id) {
		return fmt.Errorf("core id %q: use 1-64 of a-z 0-9 _ -, starting with a letter or digit", id)
	}
	return nil
}

// Dir is the core repository's home under a state directory.
func Dir(stateDir string) string { return corepath.Dir(stateDir) }

// GitDir is the bare repository under a state directory.
func GitDir(stateDir string) string { return corepath.GitDir(stateDir) }

// ErrNoRepository is returned by Open when the state directory has none.
var ErrNoRepository = errors.New("no core repository")

// Repo is an opened core repository.
type Repo struct {
	// StateDir is the state directory the repository lives under.
	StateDir string
	git      *git.Repository
	mem      recent
}

// Open opens the repository under stateDir.
func Open(stateDir string) (*Repo, error) {
	gd := GitDir(stateDir)
	if _, err := os.Stat(gd); errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w under %s: run `demiurge core init`", ErrNoRepository, Dir(stateDir))
	}
	r, err := git.PlainOpen(gd)
	if err != nil {
		return nil, fmt.Errorf("core repository %s: %w", gd, err)
	}
	return &Repo{StateDir: stateDir, git: r}, nil
}

// GitDir is the repository's git directory.
func (r *Repo) GitDir() string { return GitDir(r.StateDir) }

// Ref reads a ref's commit; ok is false when the ref does not exist.
func (r *Repo) Ref(name string) (hash string, ok bool, err error) {
	ref, err := r.git.Storer.Reference(plumbing.ReferenceName(name))
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", name, err)
	}
	return ref.Hash().String(), true, nil
}

// Live is the commit the host runs.
func (r *Repo) Live() (string, error) {
	h, ok, err := r.Ref(RefLive)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", fmt.Errorf("core repository %s has no %s: run `demiurge core init`", r.GitDir(), RefLive)
	}
	return h, nil
}

// Resolve turns a revision the operator wrote into a commit id: live,
// previous, a full ref name, a commit id or its unique prefix, with an
// optional ~N suffix.
func (r *Repo) Resolve(rev string) (string, error) {
	switch rev {
	case "live", "":
		rev = RefLive
	case "previous":
		rev = RefPrevious
	}
	for _, short := range []string{"live~", "previous~"} {
		if len(rev) > len(short) && rev[:len(short)] == short {
			rev = "refs/demiurge/" + rev
		}
	}
	h, err := r.git.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return "", fmt.Errorf("revision %q: %v (give live, previous, live~N or a commit id)", rev, err)
	}
	if _, err := r.git.CommitObject(*h); err != nil {
		return "", fmt.Errorf("revision %q is not a commit: %v", rev, err)
	}
	return h.String(), nil
}

// Cores lists the core ids of a commit's tree, sorted.
func (r *Repo) Cores(commit string) ([]string, error) {
	t, err := r.agentsTree(commit)
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range t.Entries {
		if !e.Mode.IsFile() {
			ids = append(ids, e.Name)
		}
	}
	slices.Sort(ids)
	return ids, nil
}

func (r *Repo) commit(id string) (*object.Commit, error) {
	c, err := r.git.CommitObject(plumbing.NewHash(id))
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", id, err)
	}
	return c, nil
}

func (r *Repo) agentsTree(commit string) (*object.Tree, error) {
	c, err := r.commit(commit)
	if err != nil {
		return nil, err
	}
	root, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("commit %s: tree: %w", commit, err)
	}
	t, err := root.Tree(AgentsDir)
	if err != nil {
		return nil, fmt.Errorf("commit %s has no %s/ directory: %w", short(commit), AgentsDir, err)
	}
	return t, nil
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
