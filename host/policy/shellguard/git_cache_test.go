package shellguard

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRepoCacheSeesChanges: a cached review of a repository is dropped
// as soon as anything it looked at changes: the config edited, an
// include edited, a hook added, a .git appearing nearer the cwd.
func TestRepoCacheSeesChanges(t *testing.T) {
	settleAtOnce(t) // the files are fresh: cache them anyway, to see each change drop the entry
	ws := repoWorld(t, merge(gitDirFiles("ws/.git", plainConfig+"[include]\n\tpath = inc\n"), map[string]string{"ws/.git/inc": "[user]\n\tname = a\n", "ws/sub/x": "x"}))
	check := func(step string, cwd string, want Decision) {
		t.Helper()
		v := Check("git status", Options{WorkspaceRoot: ws, Cwd: cwd, Files: OSFiles{}})
		if v.Decision != want {
			t.Fatalf("%s: git status = %v %q, want %v", step, v.Decision, v.Reasons, want)
		}
	}
	sub := filepath.Join(ws, "sub")
	check("plain", ws, Allow)
	check("plain, again (cached)", ws, Allow)
	check("plain, from sub", sub, Allow)
	cfg := filepath.Join(ws, ".git", "config")
	appendFile(t, cfg, "[core]\n\tfsmonitor = /bin/evil\n")
	check("config edited", ws, Prompt)
	if err := os.WriteFile(cfg, []byte(plainConfig+"[include]\n\tpath = inc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("config restored", ws, Allow)
	appendFile(t, filepath.Join(ws, ".git", "inc"), "[diff]\n\texternal = /bin/evil\n")
	check("include edited", ws, Prompt)
	if err := os.WriteFile(filepath.Join(ws, ".git", "inc"), []byte("[user]\n\tname = a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	check("include restored", ws, Allow)
	hook := filepath.Join(ws, ".git", "hooks", "post-index-change")
	if err := os.MkdirAll(filepath.Dir(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	check("hooks directory made", ws, Allow)
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	check("hook added", ws, Prompt)
	if err := os.Remove(hook); err != nil {
		t.Fatal(err)
	}
	check("hook removed", ws, Allow)
	check("from sub, cached", sub, Allow)
	plantGitDir(t, ws, "sub/.git", "[core]\n\tpager = evil\n")
	check("a nearer repository appeared", sub, Prompt)
}

// plantGitDir makes a repository's files (gitDirFiles) under root.
func plantGitDir(t *testing.T, root, gitDir, config string) {
	t.Helper()
	for name, data := range gitDirFiles(gitDir, config) {
		p := filepath.Join(root, name)
		if data == "/" {
			mkdir(t, p)
			continue
		}
		mkdir(t, filepath.Dir(p))
		write(t, p, data)
	}
}

func appendFile(t *testing.T, p, data string) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(data); err != nil {
		t.Fatal(err)
	}
}

// TestRepoCacheAnchorsSeeMissingPathsAppear: a cached review stamps the
// missing paths it looked for through their nearest existing directory
// (anchoredStamps); a path appearing below that directory, even under a
// directory that did not exist either, drops the review. The directories
// are left to settle first, so that they serve as anchors.
func TestRepoCacheAnchorsSeeMissingPathsAppear(t *testing.T) {
	ws := repoWorld(t, merge(gitDirFiles("ws/.git", plainConfig), map[string]string{"ws/sub/x": "x"}))
	sub := filepath.Join(ws, "sub")
	check := func(step, cwd string, want Decision) {
		t.Helper()
		v := Check("git status", Options{WorkspaceRoot: ws, Cwd: cwd, Files: OSFiles{}})
		if v.Decision != want {
			t.Fatalf("%s: git status = %v %q, want %v", step, v.Decision, v.Reasons, want)
		}
	}
	time.Sleep(anchorAge + 100*time.Millisecond)
	check("plain", ws, Allow)
	check("plain, from sub", sub, Allow)
	repoCache.Lock()
	c := repoCache.m[ws]
	repoCache.Unlock()
	anchored := false
	for _, s := range c.stamps {
		anchored = anchored || s.path == filepath.Join(ws, ".git", "objects")
	}
	// objects/info did not exist: its alternates file appears in a new
	// directory below the anchor.
	info := filepath.Join(ws, ".git", "objects", "info")
	mkdir(t, info)
	write(t, filepath.Join(info, "alternates"), "/elsewhere/objects\n")
	check("alternates appeared", ws, Prompt)
	// A repository nearer the cwd: sub/.git was missing, vouched for by sub.
	plantGitDir(t, ws, "sub/.git", "[core]\n\tpager = evil\n")
	check("a nearer repository appeared", sub, Prompt)
	// Checked last, so that a mutant dropping the anchors fails on what
	// the guard decides above.
	if len(c.stamps) == 0 || !anchored {
		t.Fatalf("the review was not cached with objects/ as the anchor of objects/info/...: %+v", c.stamps)
	}
}

// TestRepoCacheLookAgainstItsStamp: a review whose looks saw another
// state than their paths' stamps is not cached, though every path is
// back in its stamp's state when the stamps are checked again. Here
// .git is out of the cwd's parent at each stamp under it and renamed in
// for each look (out again at the last): the review read the hostile
// configuration (prompt) and every stamp said missing; cached, git
// status stayed prompted with .git gone (TestS53fRepoCacheUnderToggling
// failed so on CI, stop 61). The other way round (there at each stamp,
// out for each look) a rename moves the stamped .git's ctime, and the
// check after the review sees it.
func TestRepoCacheLookAgainstItsStamp(t *testing.T) {
	settleAtOnce(t)
	// Each case: the path renamed in for each look under it (at, and the
	// paths below it) and out at each stamp, and where it is held out.
	// .git is looked at by lstat (its answer is checked against the
	// stamp too); the config only read.
	for _, c := range []struct{ name, at, hold string }{
		{".git renamed", "ws/a/.git", "hold/.git"},
		{"config renamed", "ws/a/.git/config", "hold/config"},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, ws := s53fMake(t, []string{"hold"}, func(t *testing.T, b string) { s53fRepo(t, filepath.Join(b, "hold"), false) }, "ws/a/b")
			if c.name == "config renamed" {
				s53fRename(t, filepath.Join(base, "hold/.git"), filepath.Join(base, "ws/a/.git"))
				s53fRename(t, filepath.Join(base, "ws/a/.git/config"), filepath.Join(base, "hold/config"))
			}
			cwd := filepath.Join(base, "ws/a/b")
			in, out := filepath.Join(base, c.at), filepath.Join(base, c.hold)
			isIn := false
			move := func(wantIn bool) {
				switch {
				case wantIn && !isIn:
					s53fRename(t, out, in)
				case !wantIn && isIn:
					s53fRename(t, in, out)
				}
				isIn = wantIn
			}
			last := filepath.Join(base, "ws/a/.git/info/grafts") // the review's last look: missing either way
			stamping = func(p string, taken bool) {
				switch {
				case p == last:
					move(false)
				case p == in || strings.HasPrefix(p, in+"/"):
					move(taken)
				}
			}
			v := Check("git status", Options{WorkspaceRoot: ws, Cwd: cwd, Files: OSFiles{}})
			stamping = nil
			if isIn || v.Decision != Prompt {
				t.Fatalf("the raced review = %v %q with %s in %v at its end, want prompt and out: the race did not happen as the test means", v.Decision, v.Reasons, c.at, isIn)
			}
			s53fGit(t, "after the raced review, "+c.at+" out", ws, cwd, Allow)
		})
	}
}
