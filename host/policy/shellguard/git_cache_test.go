package shellguard

import (
	"os"
	"path/filepath"
	"testing"
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
	for name, data := range gitDirFiles("sub/.git", "[core]\n\tpager = evil\n") {
		p := filepath.Join(ws, name)
		if data == "/" {
			mkdir(t, p)
			continue
		}
		mkdir(t, filepath.Dir(p))
		write(t, p, data)
	}
	check("a nearer repository appeared", sub, Prompt)
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
