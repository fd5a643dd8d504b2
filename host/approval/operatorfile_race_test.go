package approval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/catalog"
)

// TestALiveApprovalsFileNeverOutlivesItsChecks: the resolver of a
// long-lived host keeps the approvals file's rules while the file and
// what the operator-only checks read (the file, its directory and that
// directory's parent, as symlinks lead) are as they were. Each attack
// here starts from a read that was kept (its ctimes settled), and is made
// between two decisions: the next decision applies only what a fresh
// read would (LoadOperatorFile), and an allow the file no longer gives,
// or gives from a file the checks refuse, is gone.
func TestALiveApprovalsFileNeverOutlivesItsChecks(t *testing.T) {
	old := liveSettle
	liveSettle = 50 * time.Millisecond
	t.Cleanup(func() { liveSettle = old })
	settle := func() { time.Sleep(3 * liveSettle) }
	req := Request{Tool: "terminal", Policy: catalog.ApprovalPrompt}

	write := func(t *testing.T, p, body string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(p, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
	newRig := func(t *testing.T, linkedDir bool) *liveRig {
		top := t.TempDir()
		g := &liveRig{top: top, parent: filepath.Join(top, "config")}
		g.dir = filepath.Join(g.parent, "demiurge")
		real := g.dir
		if linkedDir {
			real = filepath.Join(top, "elsewhere", "demiurge")
		}
		for _, d := range []string{g.parent, real} {
			if err := os.MkdirAll(d, 0o700); err != nil {
				t.Fatal(err)
			}
		}
		if linkedDir {
			if err := os.Symlink(real, g.dir); err != nil {
				t.Fatal(err)
			}
		}
		g.file = filepath.Join(g.dir, OperatorFileName)
		write(t, g.file, "approve: [allow:terminal]\n", 0o600)
		loaded, err := LoadOperatorFile(g.file)
		if err != nil {
			t.Fatal(err)
		}
		g.r = &Resolver{Rules: loaded, OperatorFile: &LiveOperatorFile{File: g.file, Off: []string{filepath.Join(top, "ws")}}}
		settle()
		if out := g.decide(t, req); !out.Allowed {
			t.Fatalf("the file allows the terminal: %+v", out)
		}
		if out := g.decide(t, req); !out.Allowed || !g.r.OperatorFile.ok {
			t.Fatalf("the settled read was not kept: %+v", out)
		}
		return g
	}
	must := func(t *testing.T, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name      string
		linkedDir bool
		attack    func(t *testing.T, g *liveRig)
		allowed   bool
		reason    string // in the refusal when not allowed
	}{
		{name: "renamed over by one the checks accept, without the rule", attack: func(t *testing.T, g *liveRig) {
			write(t, g.file+".new", "approve: [deny:terminal]\n", 0o600)
			must(t, os.Rename(g.file+".new", g.file))
		}, reason: "denied by rule deny:terminal"},
		{name: "renamed over by one writable by others", attack: func(t *testing.T, g *liveRig) {
			write(t, g.file+".new", "approve: [allow:terminal]\n", 0o666)
			must(t, os.Rename(g.file+".new", g.file))
		}, reason: "writable by others"},
		{name: "truncated", attack: func(t *testing.T, g *liveRig) {
			must(t, os.Truncate(g.file, 0))
		}},
		{name: "truncated, times put back", attack: func(t *testing.T, g *liveRig) {
			fi, _ := os.Stat(g.file)
			must(t, os.Truncate(g.file, 0))
			must(t, os.WriteFile(g.file, []byte("approve: []\n               \n"), 0o600))
			must(t, os.Chtimes(g.file, fi.ModTime(), fi.ModTime()))
		}},
		{name: "removed", attack: func(t *testing.T, g *liveRig) {
			must(t, os.Remove(g.file))
		}},
		{name: "made a symlink to a file the checks accept", attack: func(t *testing.T, g *liveRig) {
			other := filepath.Join(g.top, "other.yaml")
			write(t, other, "approve: [allow:terminal]\n", 0o600)
			must(t, os.Remove(g.file))
			must(t, os.Symlink(other, g.file))
		}, reason: "not a symlink"},
		{name: "given mode 0666", attack: func(t *testing.T, g *liveRig) {
			must(t, os.Chmod(g.file, 0o666))
		}, reason: "writable by others"},
		{name: "its directory given mode 0777", attack: func(t *testing.T, g *liveRig) {
			must(t, os.Chmod(g.dir, 0o777))
		}, reason: "writable by others"},
		{name: "its directory's parent given mode 0777", attack: func(t *testing.T, g *liveRig) {
			must(t, os.Chmod(g.parent, 0o777))
		}, reason: "writable by others"},
		{name: "its directory swapped for another with the same file", attack: func(t *testing.T, g *liveRig) {
			must(t, os.Rename(g.dir, g.dir+".old"))
			must(t, os.Mkdir(g.dir, 0o700))
			write(t, g.file, "approve: [allow:terminal]\n", 0o600)
			must(t, os.Chmod(g.dir, 0o777))
		}, reason: "writable by others"},
		{name: "its directory swapped for a link into the workspace", attack: func(t *testing.T, g *liveRig) {
			ws := filepath.Join(g.top, "ws", "demiurge")
			must(t, os.MkdirAll(ws, 0o700))
			write(t, filepath.Join(ws, OperatorFileName), "approve: [allow:terminal]\n", 0o600)
			must(t, os.Rename(g.dir, g.dir+".old"))
			must(t, os.Symlink(ws, g.dir))
		}, reason: "where an agent may write"},
		{name: "linked directory: its target given mode 0777", linkedDir: true, attack: func(t *testing.T, g *liveRig) {
			must(t, os.Chmod(filepath.Join(g.top, "elsewhere", "demiurge"), 0o777))
		}, reason: "writable by others"},
		{name: "linked directory: its target's parent given mode 0777", linkedDir: true, attack: func(t *testing.T, g *liveRig) {
			must(t, os.Chmod(filepath.Join(g.top, "elsewhere"), 0o777))
		}, reason: "writable by others"},
		{name: "linked directory: retargeted at a directory writable by others", linkedDir: true, attack: func(t *testing.T, g *liveRig) {
			bad := filepath.Join(g.top, "bad")
			must(t, os.Mkdir(bad, 0o700))
			write(t, filepath.Join(bad, OperatorFileName), "approve: [allow:terminal]\n", 0o600)
			must(t, os.Chmod(bad, 0o777))
			must(t, os.Remove(g.dir))
			must(t, os.Symlink(bad, g.dir))
		}, reason: "writable by others"},
		{name: "untouched", attack: func(t *testing.T, g *liveRig) {}, allowed: true},
		{name: "rewritten the same", attack: func(t *testing.T, g *liveRig) {
			write(t, g.file, "approve: [allow:terminal]\n", 0o600)
		}, allowed: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newRig(t, c.linkedDir)
			c.attack(t, g)
			// What a fresh read says now, as the host's start would.
			_, ferr := LoadOperatorFile(g.file, filepath.Join(g.top, "ws"))
			for i := range 2 { // right after the attack, and once it settled
				out := g.decide(t, req)
				if out.Allowed != c.allowed {
					t.Fatalf("decision %d after the attack: %+v (a fresh read: %v)", i+1, out, ferr)
				}
				if !c.allowed && c.reason != "" && !strings.Contains(out.Reason, c.reason) {
					t.Fatalf("decision %d: %q, want it to name %q (a fresh read: %v)", i+1, out.Reason, c.reason, ferr)
				}
				if !c.allowed && c.reason == "" && out.Via == ViaPolicy {
					t.Fatalf("decision %d: with no rule left the call is asked, not refused: %+v", i+1, out)
				}
				settle()
			}
		})
	}
}

// liveRig is top/config/demiurge/approvals.yaml (demiurge may be a
// symlink) and a resolver reading it live.
type liveRig struct {
	top, parent, dir, file string
	r                      *Resolver
}

func (g *liveRig) decide(t *testing.T, req Request) Outcome {
	t.Helper()
	out, err := g.r.Resolve(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
