package evolve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"demiurge.dev/host/core"
	"demiurge.dev/host/corerepo"
)

// loadGate is the load part of the host's gates: every core of the tree
// loads (agent.yaml, pipelines, slots). The catalog part needs the
// plugins; the CLI tests run the whole gate.
func loadGate(tree string) error {
	ents, err := os.ReadDir(filepath.Join(tree, corerepo.AgentsDir))
	if err != nil {
		return err
	}
	for _, e := range ents {
		if _, err := core.Load(filepath.Join(tree, corerepo.AgentsDir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

func realGit(t *testing.T, r *corerepo.Repo, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--git-dir", r.GitDir()}, args...)...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GIT_CONFIG_NOSYSTEM=1"}
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, stderr.String())
	}
	return strings.TrimSpace(out.String())
}

func setup(t *testing.T) *corerepo.Repo {
	t.Helper()
	r, _, err := corerepo.Init(t.TempDir(), corerepo.Seed(), "first")
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// promoteNeedsOperator checks that promoting run without the operator is
// refused as a widening run and leaves live at live.
func promoteNeedsOperator(t *testing.T, r *corerepo.Repo, run, live string) {
	t.Helper()
	_, err := Promote(context.Background(), r, run, "alice", PromoteOptions{Gate: loadGate})
	var need *NeedsOperatorError
	if !errors.As(err, &need) {
		t.Fatalf("promote without the operator: %v", err)
	}
	if now, _ := r.Live(); now != live {
		t.Fatal("live moved without the operator")
	}
}

// liveWork checks live out into a fresh work tree and returns it.
func liveWork(t *testing.T, r *corerepo.Repo) string {
	t.Helper()
	live, err := r.Live()
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(t.TempDir(), "work")
	if err := r.Checkout(live, work); err != nil {
		t.Fatal(err)
	}
	return work
}

func start(t *testing.T, r *corerepo.Repo, owner string) *Run {
	t.Helper()
	run, err := Start(r, "add a skill for release notes", owner)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// widen edits the run as the evolver does: a skill, and an
// approval rule that widens authority.
func widen(t *testing.T, r *corerepo.Repo, id string) {
	t.Helper()
	agents := AgentsDir(r.StateDir, id)
	write(t, filepath.Join(agents, "default/skills/release-notes/SKILL.md"), "---\nname: release-notes\ndescription: write release notes\n---\nList the changes.\n")
	y, err := os.ReadFile(filepath.Join(agents, "default/agent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(agents, "default/agent.yaml"), string(y)+"approvals: [\"allow:write_file\"]\nslots:\n  skills: skills\n")
}

func TestReviewThenPromoteAWideningRun(t *testing.T) {
	r := setup(t)
	first, _ := r.Live()
	run := start(t, r, "alice")
	if fi, err := os.Stat(filepath.Join(AgentsDir(r.StateDir, run.ID), "default/agent.yaml")); err != nil || fi.IsDir() {
		t.Fatalf("the work tree is not a checkout of live: %v", err)
	}
	if _, err := Promote(context.Background(), r, run.ID, "alice", PromoteOptions{Operator: true, Gate: loadGate}); err == nil || !strings.Contains(err.Error(), "not reviewed") {
		t.Fatalf("promote of an unreviewed run: %v", err)
	}
	widen(t, r, run.ID)
	rev, err := Review(context.Background(), r, run.ID, "alice", loadGate, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"agents/default/agent.yaml", "agents/default/skills/release-notes/SKILL.md"}; !slices.Equal(rev.Changed, want) {
		t.Fatalf("changed %v, want %v", rev.Changed, want)
	}
	if len(rev.Widens) != 1 || rev.Widens[0] != "core default: adds approval rule allow:write_file" || rev.MCPToken != "" {
		t.Fatalf("widens %v, token %q", rev.Widens, rev.MCPToken)
	}
	if got := realGit(t, r, "rev-parse", RunRef(run.ID)); got != rev.Commit {
		t.Fatalf("git sees the run ref at %s, review said %s", got, rev.Commit)
	}
	// Only the operator promotes a widening run; nothing moves before.
	promoteNeedsOperator(t, r, run.ID, first)
	old, err := Promote(context.Background(), r, run.ID, "alice", PromoteOptions{Operator: true, Gate: loadGate})
	if err != nil {
		t.Fatal(err)
	}
	if old.Old != first || realGit(t, r, "rev-parse", corerepo.RefLive) != rev.Commit || realGit(t, r, "rev-parse", corerepo.RefPrevious) != first {
		t.Fatalf("refs after promote: %+v", old)
	}
	realGit(t, r, "fsck", "--strict")
	if _, err := Promote(context.Background(), r, run.ID, "alice", PromoteOptions{Operator: true, Gate: loadGate}); err == nil || !strings.Contains(err.Error(), "promoted already") {
		t.Fatalf("second promote: %v", err)
	}
	if err := Discard(r, run.ID, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := r.Ref(RunRef(run.ID)); ok {
		t.Fatal("discard left the run's ref")
	}
	if _, err := os.Stat(WorkDir(r.StateDir, run.ID)); !os.IsNotExist(err) {
		t.Fatal("discard left the work tree")
	}
	if _, err := Load(r.StateDir, run.ID, ""); !errors.Is(err, ErrNoRun) {
		t.Fatal("discard left the metadata")
	}
}

func TestFailingGateNamesTheRunsFileAndMovesNothing(t *testing.T) {
	r := setup(t)
	run := start(t, r, "alice")
	write(t, filepath.Join(AgentsDir(r.StateDir, run.ID), "default/agent.yaml"), "name: default\ncapabilitees: [fs.read]\n")
	_, err := Review(context.Background(), r, run.ID, "alice", loadGate, nil)
	want := "run " + run.ID + ": agents/default/agent.yaml:2:1: capabilitees"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), r.StateDir) {
		t.Fatalf("review of a broken agent.yaml: %v, want %q and no state directory path", err, want)
	}
	if _, ok, _ := r.Ref(RunRef(run.ID)); ok {
		t.Fatal("a failed review wrote the run's ref")
	}
	if got, _ := Load(r.StateDir, run.ID, ""); got.State != StateStarted {
		t.Fatalf("state %s after a failed review", got.State)
	}
}

// An unknown id, a malformed one and another owner's get the same answer.
func TestUnknownAndForeignRunsLookAlike(t *testing.T) {
	r := setup(t)
	run := start(t, r, "alice")
	for _, c := range []struct{ id, owner string }{{run.ID, "mallory"}, {"run_0000000000000000", "alice"}, {"../../etc", "alice"}, {"", "alice"}} {
		_, err := Review(context.Background(), r, c.id, c.owner, loadGate, nil)
		if !errors.Is(err, ErrNoRun) || err.Error() != ErrNoRun.Error() {
			t.Fatalf("review %q as %s: %v", c.id, c.owner, err)
		}
		if err := Discard(r, c.id, c.owner); !errors.Is(err, ErrNoRun) {
			t.Fatalf("discard %q as %s: %v", c.id, c.owner, err)
		}
	}
	if runs, _ := List(r.StateDir, "mallory"); len(runs) != 0 {
		t.Fatal("another owner lists alice's run")
	}
	if runs, _ := List(r.StateDir, ""); len(runs) != 1 {
		t.Fatal("the operator does not see the run")
	}
}

func TestPromoteOfAChangedRunMovesNothing(t *testing.T) {
	r := setup(t)
	first, _ := r.Live()
	run := start(t, r, "alice")
	widen(t, r, run.ID)
	if _, err := Review(context.Background(), r, run.ID, "alice", loadGate, nil); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(AgentsDir(r.StateDir, run.ID), "default/skills/release-notes/SKILL.md"), "---\nname: release-notes\ndescription: changed after review\n---\n")
	if _, err := Promote(context.Background(), r, run.ID, "alice", PromoteOptions{Operator: true, Gate: loadGate}); err == nil || !strings.Contains(err.Error(), "changed since its review") {
		t.Fatalf("promote of a changed run: %v", err)
	}
	if live, _ := r.Live(); live != first {
		t.Fatal("live moved")
	}
}

// An evolver that writes a .git into its work tree, or beside agents/,
// has its review refused.
func TestReviewRefusesGitAndStrayFiles(t *testing.T) {
	r := setup(t)
	run := start(t, r, "alice")
	for _, c := range []struct{ file, top string }{
		{"agents/default/.git/hooks/pre-commit", "agents/default/.git"},
		{"agents/default/.GIT/config", "agents/default/.GIT"},
		{"agents/default/x/.git", "agents/default/x"},
		{"agents/default/.git. /config", "agents/default/.git. "},
		{"notes.txt", "notes.txt"},
	} {
		write(t, filepath.Join(WorkDir(r.StateDir, run.ID), c.file), "x")
		if _, err := Review(context.Background(), r, run.ID, "alice", loadGate, nil); err == nil || !strings.Contains(err.Error(), filepath.Base(c.top)) {
			t.Fatalf("review with %s: %v", c.file, err)
		}
		if err := os.RemoveAll(filepath.Join(WorkDir(r.StateDir, run.ID), c.top)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Review(context.Background(), r, run.ID, "alice", loadGate, nil); !errors.Is(err, ErrNothingChanged) {
		t.Fatalf("after cleaning up: %v", err)
	}
}

func TestMCPChangeNeedsItsExactToken(t *testing.T) {
	r := setup(t)
	first, _ := r.Live()
	run := start(t, r, "alice")
	agents := AgentsDir(r.StateDir, run.ID)
	y, _ := os.ReadFile(filepath.Join(agents, "default/agent.yaml"))
	write(t, filepath.Join(agents, "default/agent.yaml"), string(y)+"slots:\n  mcp: mcp\n")
	write(t, filepath.Join(agents, "default/mcp/docs.yaml"), "command: docs-server\nenv: {API_KEY: sk-secret-value-123}\n")
	write(t, filepath.Join(agents, "default/mcp/web.yaml"), "url: https://mcp.example/mcp?key=q-secret-456\nheaders: {X-Api-Key: h-secret-789}\n")
	rev, err := Review(context.Background(), r, run.ID, "alice", loadGate, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(rev.MCPToken, "mcp-review:") || len(rev.MCPToken) != len("mcp-review:")+64 {
		t.Fatalf("token %q", rev.MCPToken)
	}
	b, _ := json.Marshal(rev)
	for _, secret := range []string{"sk-secret-value-123", "q-secret-456", "h-secret-789"} {
		if strings.Contains(string(b), secret) {
			t.Fatalf("the review shows the secret %q: %s", secret, b)
		}
	}
	if !strings.Contains(string(b), `"env_keys":["API_KEY"]`) || !strings.Contains(string(b), `"host":"mcp.example"`) {
		t.Fatalf("the review does not name the env key and host: %s", b)
	}
	for _, tok := range []string{"", "mcp-review:" + strings.Repeat("0", 64), rev.MCPToken + " "} {
		if _, err := Promote(context.Background(), r, run.ID, "alice", PromoteOptions{MCPToken: tok, Operator: true, Gate: loadGate}); !errors.Is(err, ErrMCPReview) {
			t.Fatalf("promote with token %q: %v", tok, err)
		}
	}
	if live, _ := r.Live(); live != first {
		t.Fatal("live moved without the token")
	}
	// The review's own token, verbatim, is taken.
	if _, err := Promote(context.Background(), r, run.ID, "alice", PromoteOptions{MCPToken: rev.MCPToken, Operator: true, Gate: loadGate}); err != nil {
		t.Fatal(err)
	}
}

// Two promotes of two runs reviewed on the same live: one wins, the other
// loses cleanly and leaves live at the winner.
func TestPromotesRacingOneLoses(t *testing.T) {
	r := setup(t)
	var ids []string
	for i := range 2 {
		run := start(t, r, "alice")
		write(t, filepath.Join(AgentsDir(r.StateDir, run.ID), "default/skills/s/SKILL.md"), "---\nname: s\ndescription: d\n---\n"+strings.Repeat("x", i+1))
		if _, err := Review(context.Background(), r, run.ID, "alice", loadGate, nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, run.ID)
	}
	var wg sync.WaitGroup
	errs := make([]error, 2)
	res := make([]Promoted, 2)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = Promote(context.Background(), r, id, "alice", PromoteOptions{Gate: loadGate})
		}()
	}
	wg.Wait()
	won := -1
	for i, err := range errs {
		if err == nil {
			if won >= 0 {
				t.Fatal("both promotes won")
			}
			won = i
		}
	}
	if won < 0 {
		t.Fatalf("no promote won: %v", errs)
	}
	if live, _ := r.Live(); live != res[won].Live {
		t.Fatalf("live %s, want the winner's %s", live, res[won].Live)
	}
	realGit(t, r, "fsck", "--strict")
}

// TestReviewOfANewCore: a run that adds a whole core (agents/<id>/, with
// an MCP server) is reviewed as a core with nothing before it: its MCP
// server is new, a widening, and its change is named; nothing faults on
// the core live lacks.
func TestReviewOfANewCore(t *testing.T) {
	r := setup(t)
	run := start(t, r, "alice")
	agents := AgentsDir(r.StateDir, run.ID)
	write(t, filepath.Join(agents, "helper/agent.yaml"), "name: helper\nslots:\n  mcp: mcp\n")
	write(t, filepath.Join(agents, "helper/mcp/docs.yaml"), "command: docs-server\n")
	rev, err := Review(context.Background(), r, run.ID, "alice", loadGate, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rev.Widens, "\n"); !strings.Contains(got, "core helper: new MCP server docs") {
		t.Fatalf("widens %q", rev.Widens)
	}
	if len(rev.MCPChanged) != 1 || !strings.HasPrefix(rev.MCPChanged[0], "helper/docs none->") {
		t.Fatalf("the MCP change of the new core: %q", rev.MCPChanged)
	}
}
