package shellguard

import (
	"os"
	"path/filepath"
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
