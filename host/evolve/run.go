package evolve

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"
	"unicode/utf8"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/termtext"
)

// Run states.
const (
	StateStarted  = "started"
	StateReviewed = "reviewed"
	StatePromoted = "promoted"
)

// Run is one evolution run's metadata, kept by the host beside (never
// inside) the run's work tree, so the evolver cannot change it.
type Run struct {
	ID    string `json:"id"`
	Goal  string `json:"goal"`
	State string `json:"state"`
	// Owner is the principal that started the run; a run of another owner
	// answers as an unknown one.
	Owner string `json:"owner"`
	// Base is live when the run started: its work tree began as Base's.
	Base    string    `json:"base"`
	Created time.Time `json:"created"`
	// Reviewed is the commit review wrote at refs/demiurge/runs/<id>, on
	// top of ReviewedOn (live at the review); MCPToken is its
	// mcp-review token when MCP declarations changed; Widens lists how it
	// widens authority (empty: it does not).
	Reviewed   string   `json:"reviewed,omitempty"`
	ReviewedOn string   `json:"reviewed_on,omitempty"`
	MCPToken   string   `json:"mcp_token,omitempty"`
	Widens     []string `json:"widens,omitempty"`
	// Promoted is the live commit the promote made, when it did.
	Promoted string `json:"promoted,omitempty"`
	// Task is the background task of the evolver, when one runs.
	Task string `json:"task,omitempty"`
}

// RunRef is the ref of a reviewed run.
func RunRef(id string) string { return "refs/demiurge/runs/" + id }

// ErrNoRun is the one answer for a run id that does not exist and for one
// of another owner: the two are not told apart.
var ErrNoRun = errors.New("no such evolution run (`demiurge core runs` lists them)")

var runIDPattern = regexp.MustCompile(`^run_[0-9a-f]{16}$`)

// Root is where runs live: STATE/core/.evolve.
func Root(stateDir string) string { return filepath.Join(corerepo.Dir(stateDir), ".evolve") }

// WorkDir is the run's work tree root (it holds agents/).
func WorkDir(stateDir, id string) string { return filepath.Join(Root(stateDir), "runs", id) }

// AgentsDir is the run's agents/ directory: the evolver's only writable
// place.
func AgentsDir(stateDir, id string) string {
	return filepath.Join(WorkDir(stateDir, id), corerepo.AgentsDir)
}

func metaFile(stateDir, id string) string { return filepath.Join(Root(stateDir), "meta", id+".json") }

func newRunID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "run_" + hex.EncodeToString(b[:]), nil
}

// Start makes a new run: a work tree of live at .evolve/runs/<id>/agents
// and its metadata. The evolver is started by the caller (the host's spawn
// gate), with the work tree as its only writable place.
func Start(r *corerepo.Repo, goal, owner string) (*Run, error) {
	if goal == "" {
		return nil, errors.New("an evolution run needs a goal")
	}
	if err := plainGoal(goal); err != nil {
		return nil, err
	}
	live, err := r.Live()
	if err != nil {
		return nil, err
	}
	id, err := newRunID()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(Root(r.StateDir), "runs"), 0o700); err != nil {
		return nil, err
	}
	if err := r.Checkout(live, WorkDir(r.StateDir, id)); err != nil {
		return nil, err
	}
	run := &Run{ID: id, Goal: goal, State: StateStarted, Owner: owner, Base: live, Created: time.Now().UTC()}
	if err := save(r.StateDir, run); err != nil {
		os.RemoveAll(WorkDir(r.StateDir, id))
		return nil, err
	}
	return run, nil
}

// plainGoal refuses a goal that is not UTF-8 or holds a character
// termtext replaces (anything but graphic ones, newline and tab): the goal is
// the model's text, and `core runs`, `core log` (the run's commit message)
// and the evolver's approval cards print it on the operator's terminal.
func plainGoal(goal string) error {
	if !utf8.ValidString(goal) {
		return errors.New("the goal is not UTF-8")
	}
	for _, r := range goal {
		if termtext.Replaced(r) {
			return fmt.Errorf("the goal holds %U, a character a terminal does not show as it is (a control, format or invisible one); write it as plain text", r)
		}
	}
	return nil
}

// Load reads run id for owner ("" is the operator, who sees every run). A
// malformed, missing or foreign id is ErrNoRun alike.
func Load(stateDir, id, owner string) (*Run, error) {
	if !runIDPattern.MatchString(id) {
		return nil, ErrNoRun
	}
	b, err := os.ReadFile(metaFile(stateDir, id))
	if err != nil {
		return nil, ErrNoRun
	}
	var run Run
	if err := json.Unmarshal(b, &run); err != nil || run.ID != id {
		return nil, fmt.Errorf("run %s: its metadata %s is damaged: %v", id, metaFile(stateDir, id), err)
	}
	if owner != "" && run.Owner != owner {
		return nil, ErrNoRun
	}
	return &run, nil
}

// List returns owner's runs ("" is every run), oldest first, as every list
// of what happened is (README, "Lists").
func List(stateDir, owner string) ([]*Run, error) {
	ents, err := os.ReadDir(filepath.Join(Root(stateDir), "meta"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var runs []*Run
	for _, e := range ents {
		id := e.Name()
		if filepath.Ext(id) != ".json" {
			continue
		}
		run, err := Load(stateDir, id[:len(id)-len(".json")], owner)
		if errors.Is(err, ErrNoRun) {
			continue
		}
		if err != nil {
			return nil, err
		}
		runs = append(runs, run)
	}
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].Created.Before(runs[j].Created) })
	return runs, nil
}

// save writes the metadata whole (a temporary file renamed into place).
func save(stateDir string, run *Run) error {
	p := metaFile(stateDir, run.ID)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(run, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p)
}
