package shellguard

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// pathWorld is a real workspace in a temp directory, with a directory
// outside it, a home and symlinks of every kind an attacker would plant.
type pathWorld struct {
	base, ws, outside, home string
}

func newPathWorld(t *testing.T) pathWorld {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := pathWorld{base: base, ws: filepath.Join(base, "ws"), outside: filepath.Join(base, "outside"), home: filepath.Join(base, "home")}
	for _, d := range []string{"ws/sub/deep", "ws/tree_clean/a", "ws/tree_env/a", "ws/tree_linkout", "ws/tree_linkenv",
		"ws/tree_dirlink", "ws/hidden", "outside/inner", "home"} {
		mkdir(t, filepath.Join(base, d))
	}
	for _, f := range []string{"ws/README.md", "ws/.env.local", "ws/sub/x.txt", "ws/tree_clean/a/main.go", "ws/tree_env/a/main.go",
		"ws/tree_env/a/.env", "ws/hidden/.env", "outside/secret.txt", "outside/inner/y.txt", "home/.bash_history", "x"} {
		write(t, filepath.Join(base, f), "data\n")
	}
	for link, target := range map[string]string{
		"ws/link_shadow":           "/etc/shadow",
		"ws/link_out":              "../outside/secret.txt",
		"ws/link_in":               "README.md",
		"ws/link_env":              ".env.local",
		"ws/jump":                  filepath.Join(base, "outside/inner"),
		"ws/sub/up":                "../../outside",
		"ws/loop1":                 "loop2",
		"ws/loop2":                 "loop1",
		"ws/link_environ":          "/proc/self/environ",
		"ws/tree_linkout/out":      "../../outside",
		"ws/tree_linkenv/env":      "../.env.local",
		"ws/tree_dirlink/h":        "../hidden",
		"ws/tree_clean/a/readme":   "../../README.md",
		"ws/tree_clean/a/self":     "..",
		"ws/tree_clean/a/dangling": "nowhere",
	} {
		if err := os.Symlink(target, filepath.Join(base, link)); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func mkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, p, data string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (w pathWorld) options(cwd string) Options {
	return Options{WorkspaceRoot: w.ws, Cwd: filepath.Join(w.ws, cwd), Home: w.home, Files: OSFiles{}}
}

// TestPathsResolved: operands are resolved from the cwd through symlinks
// and judged as written and as resolved.
func TestPathsResolved(t *testing.T) {
	w := newPathWorld(t)
	for _, tc := range []struct {
		cmd, cwd string
		want     Decision
		risk     Risk
		reason   string // a part of a reason, when it prompts
	}{
		{"cat README.md", "", Allow, Low, ""},
		{"cat ./README.md sub/x.txt", "", Allow, Low, ""},
		{"cat link_in", "", Allow, Low, ""},
		{"cat x.txt", "sub", Allow, Low, ""},
		{"cat ../README.md", "sub", Allow, Low, ""},
		{"cat missing.txt", "", Allow, Low, ""},
		{"cat " + "WS/README.md", "", Allow, Low, ""},
		{"cat link_shadow", "", Prompt, High, "credential-like"},
		{"cat link_out", "", Prompt, Medium, "resolves to"},
		{"cat link_env", "", Prompt, High, "credential-like"},
		{"cat link_environ", "", Prompt, High, "credential-like"},
		{"cat jump/../secret.txt", "", Prompt, Medium, "outside the workspace"},
		{"cat sub/up/secret.txt", "", Prompt, Medium, "outside the workspace"},
		{"cat up/inner/y.txt", "sub", Prompt, Medium, "outside the workspace"},
		{"cat sub/../../x", "", Prompt, Medium, "outside the workspace"},
		{"cat loop1", "", Prompt, Medium, "cannot follow"},
		{"head ./.env.local", "", Prompt, High, "credential-like"},
		{"head -n 3 sub/../.env.local", "", Prompt, High, "credential-like"},
		{"wc -l hidden/.env", "", Prompt, High, "credential-like"},
		{"cat /etc/shadow", "", Prompt, High, "credential-like"},
		{"cat //etc//shadow", "", Prompt, High, "credential-like"},
		{"cat /etc/./shadow", "", Prompt, High, "credential-like"},
		{"cat /etc/ssh/../shadow", "", Prompt, High, "credential-like"},
		{"cat /proc/self/environ", "", Prompt, High, "credential-like"},
		{"cat /proc/1/environ", "", Prompt, High, "credential-like"},
		{"cat /proc/thread-self/environ", "", Prompt, High, "credential-like"},
		{"cat /proc/self/root/etc/shadow", "", Prompt, High, "credential-like"},
		{"cat /proc/self/cwd/README.md", "", Prompt, High, "credential-like"},
		{"cat " + "../outside/secret.txt", "", Prompt, Medium, "outside the workspace"},
		{"cat <link_shadow", "", Prompt, High, "credential-like"},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			cmd := strings.ReplaceAll(tc.cmd, "WS", w.ws)
			v := Check(cmd, w.options(tc.cwd))
			if v.Decision != tc.want || v.Risk != tc.risk {
				t.Fatalf("Check(%q) in %q = %v/%v %q, want %v/%v", cmd, tc.cwd, v.Decision, v.Risk, v.Reasons, tc.want, tc.risk)
			}
			if tc.reason != "" && !strings.Contains(strings.Join(v.Reasons, "\n"), tc.reason) {
				t.Fatalf("Check(%q) reasons %q, want one saying %q", cmd, v.Reasons, tc.reason)
			}
		})
	}
}

// TestPathsHome: a home directory's history asks however it is named.
func TestPathsHome(t *testing.T) {
	w := newPathWorld(t)
	for _, cmd := range []string{"wc ~/.bash_history", "wc " + w.home + "/.bash_history", "cat $HOME/.bash_history"} {
		if v := Check(cmd, w.options("")); v.Decision != Prompt {
			t.Errorf("Check(%q) = %v %q, want prompt", cmd, v.Decision, v.Reasons)
		}
	}
}

// TestReadTree: a command reading a whole tree is judged by what the
// tree holds.
func TestReadTree(t *testing.T) {
	w := newPathWorld(t)
	for _, tc := range []struct {
		tree   string
		want   Decision
		reason string
	}{
		{"tree_clean", Allow, ""},
		{"tree_clean/a", Allow, ""},
		{"README.md", Allow, ""},
		{".", Prompt, ".env.local"},
		{"tree_env", Prompt, "tree_env/a/.env"},
		{"tree_linkout", Prompt, "leads out of the workspace"},
		{"tree_linkenv", Prompt, "credential-like"},
		{"tree_dirlink", Prompt, "hidden/.env"},
		{"jump", Prompt, "outside the workspace"},
	} {
		t.Run(tc.tree, func(t *testing.T) {
			g := newGuard(w.options(""))
			var f finding
			g.readTree(tc.tree, &f)
			if f.decision != tc.want {
				t.Fatalf("readTree(%q) = %v %q, want %v", tc.tree, f.decision, f.reasons, tc.want)
			}
			if tc.reason != "" && !strings.Contains(strings.Join(f.reasons, "\n"), tc.reason) {
				t.Fatalf("readTree(%q) reasons %q, want one naming %q", tc.tree, f.reasons, tc.reason)
			}
		})
	}
}

// TestReadTreeVisible: ripgrep's default walk skips hidden entries and
// nested symlinks, so only what it reads is judged; the operand itself is
// still followed and judged.
func TestReadTreeVisible(t *testing.T) {
	w := newPathWorld(t)
	write(t, filepath.Join(w.ws, "tree_env", "server.pem"), "k")
	mkdir(t, filepath.Join(w.ws, "tree_hidden", ".ssh"))
	write(t, filepath.Join(w.ws, "tree_hidden", ".env"), "k")
	write(t, filepath.Join(w.ws, "tree_hidden", ".ssh", "id_rsa"), "k")
	write(t, filepath.Join(w.ws, "tree_hidden", "main.go"), "k")
	for _, tc := range []struct {
		tree string
		want Decision
	}{
		{"tree_clean", Allow},
		{"tree_hidden", Allow},
		{"tree_linkout", Allow},
		{"tree_linkenv", Allow},
		{"tree_dirlink", Allow},
		{"tree_env", Prompt}, // server.pem is not hidden
		{"jump", Prompt},     // the operand leaves the workspace
		{"link_env", Prompt},
	} {
		// rg's own judgement, as a command: the walk rgPost picks.
		if v := Check("rg -n TODO "+tc.tree, w.options("")); v.Decision != tc.want {
			t.Errorf("rg -n TODO %s = %v %q, want %v", tc.tree, v.Decision, v.Reasons, tc.want)
		}
	}
	// The full walk (grep -r) reads them all.
	g := newGuard(w.options(""))
	var f finding
	if g.readTree("tree_hidden", &f); f.decision != Prompt {
		t.Errorf("readTree(tree_hidden) = %v, want prompt", f.decision)
	}
}

// TestReadTreeBound: a tree larger than the walk's bound asks.
func TestReadTreeBound(t *testing.T) {
	w := newPathWorld(t)
	big := filepath.Join(w.ws, "big")
	mkdir(t, big)
	const limit = 300
	for i := range limit + 1 {
		f, err := os.Create(filepath.Join(big, "f"+strconv.Itoa(i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	g := newGuard(w.options(""))
	g.treeLimit = limit
	var f finding
	g.readTree("big", &f)
	if f.decision != Prompt || !strings.Contains(strings.Join(f.reasons, "\n"), "more than 300 entries") {
		t.Fatalf("readTree(big) = %v %q, want a prompt saying the tree is too large", f.decision, f.reasons)
	}
}

// TestGitGrepNoIndex: git grep --no-index reads the tree below the cwd
// or its pathspecs.
func TestGitGrepNoIndex(t *testing.T) {
	w := newPathWorld(t)
	for _, tc := range []struct {
		cmd  string
		want Decision
	}{
		{"git grep --no-index foo tree_clean", Allow},
		{"git grep --no-index -e foo tree_clean", Allow},
		{"git grep --no-index foo", Prompt},
		{"git grep --no-index foo tree_env", Prompt},
		{"git grep --no-index -e foo tree_linkout", Prompt},
		// after --, the pattern first when none was given (git grep -- foo d searches d)
		{"git grep --no-index -- foo tree_env", Prompt},
		{"git grep --no-index -- foo tree_clean", Allow},
		{"git grep --no-index foo -- tree_env", Prompt},
		{"git grep --no-index foo -- tree_clean", Allow},
		{"git grep --no-index -e foo -- tree_clean", Allow},
		{"git grep --no-index -e foo --", Prompt}, // the cwd, which holds .env.local
		{"git diff --no-index tree_clean/a tree_clean", Allow},
		{"git diff --no-index tree_clean tree_env", Prompt},
		{"git diff --no-index README.md link_env", Prompt},
	} {
		if v := Check(tc.cmd, w.options("")); v.Decision != tc.want {
			t.Errorf("Check(%q) = %v %q, want %v", tc.cmd, v.Decision, v.Reasons, tc.want)
		}
	}
}

// TestRgReadsWhatRipgrepReads: rg's default walk skips hidden entries and
// nested symlinks, so a workspace .env does not make `rg TODO` ask, while
// every spelling that reads hidden files or follows links does.
func TestRgReadsWhatRipgrepReads(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("K=v\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(root, "etc")); err != nil {
		t.Fatal(err)
	}
	opts := Options{WorkspaceRoot: root, Files: OSFiles{}}
	for _, tc := range []struct {
		cmd  string
		want Decision
	}{
		{"rg TODO", Allow},
		{"rg -n TODO .", Allow},
		{"rg -u TODO", Allow},
		{"rg --hidden TODO", Prompt},
		{"rg -. TODO", Prompt},
		{"rg -uu TODO", Prompt},
		{"rg -u -u TODO", Prompt},
		{"rg -L TODO", Prompt},
		{"rg --follow TODO", Prompt},
		{"grep -r TODO .", Prompt},
	} {
		if v := Check(tc.cmd, opts); v.Decision != tc.want {
			t.Errorf("Check(%q) = %v %q, want %v", tc.cmd, v.Decision, v.Reasons, tc.want)
		}
	}
}

// sortedFiles lists directories in name order, so that a walk's order
// (and which entries it names first) is fixed.
type sortedFiles struct{ OSFiles }

func (s sortedFiles) ReadDir(name string, max int) ([]fs.DirEntry, error) {
	entries, err := s.OSFiles.ReadDir(name, max)
	sorted := slices.Clone(entries)
	slices.SortFunc(sorted, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return sorted, err
}

// TestTreeWalkNamesThreeAndTheFirstCredential: a walk names the first
// maxTreeFindings entries that ask and folds the rest into one line, but
// a credential-like entry found after them is still named: the operator
// sees why the command asks at High.
func TestTreeWalkNamesThreeAndTheFirstCredential(t *testing.T) {
	w := newPathWorld(t)
	tree := filepath.Join(w.ws, "tree_many")
	mkdir(t, filepath.Join(tree, "z"))
	write(t, filepath.Join(tree, "z", ".env"), "k")
	for i := 1; i <= 5; i++ { // a1..a5, read before z: each leads out
		if err := os.Symlink("../../outside", filepath.Join(tree, "a"+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	opts := w.options("")
	opts.Files = sortedFiles{}
	g := newGuard(opts)
	var f finding
	g.readTree("tree_many", &f)
	all := strings.Join(f.reasons, "\n")
	named := 0
	for _, r := range f.reasons {
		if strings.Contains(r, "whose link") {
			named++
		}
	}
	if named != maxTreeFindings {
		t.Errorf("%d links named, want %d: %q", named, maxTreeFindings, f.reasons)
	}
	if !strings.Contains(all, "whose link tree_many/a1 leads out") { // named from the workspace's root
		t.Errorf("the first link is not named by its path in the workspace: %q", f.reasons)
	}
	if !strings.Contains(all, "holds more entries that ask") {
		t.Errorf("the links past the third are not summed up: %q", f.reasons)
	}
	if !strings.Contains(all, "z/.env, a credential-like path") || f.risk != High {
		t.Errorf("the credential after the named links is not named at High: %v %q", f.risk, f.reasons)
	}
}

// TestFortyLinksAreFollowedAsLinuxDoes: a chain of 40 symlinks resolves
// (the kernel's MAXSYMLINKS) and the file at its end is judged; a 41st
// cannot be followed, and asks.
func TestFortyLinksAreFollowedAsLinuxDoes(t *testing.T) {
	w := newPathWorld(t)
	chain := func(name string, n int) {
		for i := 1; i <= n; i++ {
			target := name + strconv.Itoa(i+1)
			if i == n {
				target = ".env.local"
			}
			if err := os.Symlink(target, filepath.Join(w.ws, name+strconv.Itoa(i))); err != nil {
				t.Fatal(err)
			}
		}
	}
	chain("c", maxLinks)
	chain("d", maxLinks+1)
	if v := Check("cat c1", w.options("")); !strings.Contains(strings.Join(v.Reasons, "\n"), "credential-like") {
		t.Errorf("cat through %d links = %v %q, want the credential at its end named", maxLinks, v.Decision, v.Reasons)
	}
	if v := Check("cat d1", w.options("")); v.Decision == Allow || !strings.Contains(strings.Join(v.Reasons, "\n"), "cannot follow") {
		t.Errorf("cat through %d links = %v %q, want it asked as one that cannot be followed", maxLinks+1, v.Decision, v.Reasons)
	}
}

// TestReadTreeBoundCountsEveryDirectory: the bound is of the whole walk,
// not of each listing: a tree of exactly the bound's entries across two
// directories is read, one more entry asks.
func TestReadTreeBoundCountsEveryDirectory(t *testing.T) {
	w := newPathWorld(t)
	const limit = 300
	tree := filepath.Join(w.ws, "split")
	for _, d := range []string{"a", "b"} { // 2 + 149 + 149 entries
		mkdir(t, filepath.Join(tree, d))
		for i := range 149 {
			write(t, filepath.Join(tree, d, "f"+strconv.Itoa(i)), "")
		}
	}
	read := func() finding {
		g := newGuard(w.options(""))
		g.treeLimit = limit
		var f finding
		g.readTree("split", &f)
		return f
	}
	if f := read(); f.decision != Allow {
		t.Fatalf("a tree of exactly %d entries = %v %q, want allow", limit, f.decision, f.reasons)
	}
	write(t, filepath.Join(tree, "b", "one-more"), "")
	if f := read(); f.decision != Prompt || !strings.Contains(strings.Join(f.reasons, "\n"), "more than 300 entries") {
		t.Fatalf("a tree of %d entries = %v %q, want a prompt saying the tree is too large", limit+1, f.decision, f.reasons)
	}
}

// TestReadTreeDepthBound: a walk descends maxTreeDepth directories and
// asks about a tree nested deeper.
func TestReadTreeDepthBound(t *testing.T) {
	w := newPathWorld(t)
	deepest := filepath.Join(w.ws, "nest")
	for range maxTreeDepth {
		deepest = filepath.Join(deepest, "d")
	}
	mkdir(t, deepest)
	read := func() finding {
		var f finding
		newGuard(w.options("")).readTree("nest", &f)
		return f
	}
	if f := read(); f.decision != Allow {
		t.Fatalf("a tree %d deep = %v %q, want allow", maxTreeDepth, f.decision, f.reasons)
	}
	// A link to the tree is one level more, as a directory would be.
	mkdir(t, filepath.Join(w.ws, "nestlink"))
	if err := os.Symlink("../nest", filepath.Join(w.ws, "nestlink", "n")); err != nil {
		t.Fatal(err)
	}
	var f finding
	newGuard(w.options("")).readTree("nestlink", &f)
	if f.decision != Prompt || !strings.Contains(strings.Join(f.reasons, "\n"), "nested more than") {
		t.Fatalf("a link to a tree %d deep = %v %q, want a prompt saying it is nested too deep", maxTreeDepth, f.decision, f.reasons)
	}
	mkdir(t, filepath.Join(deepest, "d"))
	if f := read(); f.decision != Prompt || !strings.Contains(strings.Join(f.reasons, "\n"), "nested more than") {
		t.Fatalf("a tree %d deep = %v %q, want a prompt saying it is nested too deep", maxTreeDepth+1, f.decision, f.reasons)
	}
}

// TestTreeWalkEndsAtACredentialOnceThreeAreNamed: after a credential-like
// entry nothing can make the verdict stricter, so the walk ends there once
// maxTreeFindings entries are named (a tree like /etc is not walked to its
// end), and not before: the entries after an early credential are named.
func TestTreeWalkEndsAtACredentialOnceThreeAreNamed(t *testing.T) {
	w := newPathWorld(t)
	link := func(name string) {
		if err := os.Symlink("../../outside", filepath.Join(w.ws, name)); err != nil {
			t.Fatal(err)
		}
	}
	mkdir(t, filepath.Join(w.ws, "late", "b"))
	write(t, filepath.Join(w.ws, "late", "b", ".env"), "k")
	link("late/a1")
	link("late/a2")
	link("late/c1") // after the third finding, a credential: not walked to
	mkdir(t, filepath.Join(w.ws, "early", "a"))
	write(t, filepath.Join(w.ws, "early", "a", ".env"), "k")
	link("early/b1")
	link("early/b2")
	read := func(tree string) string {
		opts := w.options("")
		opts.Files = sortedFiles{}
		var f finding
		newGuard(opts).readTree(tree, &f)
		if f.risk != High {
			t.Errorf("readTree(%s) risk %v, want high", tree, f.risk)
		}
		return strings.Join(f.reasons, "\n")
	}
	if got := read("late"); strings.Contains(got, "c1") || strings.Contains(got, "more entries") {
		t.Errorf("the walk went on past the credential found third: %q", got)
	}
	if got := read("early"); !strings.Contains(got, "early/b1") || !strings.Contains(got, "early/b2") {
		t.Errorf("the entries after a credential found first are not named: %q", got)
	}
}

// TestRgReadsHiddenEntriesAWhitelistNames: a "!" line of an ignore file
// makes ripgrep read the hidden entries it names (rg 14: `echo '!.env' >
// .gitignore; rg -l TODO` lists sub/.env), so the guard then judges them:
// in the directory walked, in a parent of the operand, or in the
// repository's .git/info/exclude.
func TestRgReadsHiddenEntriesAWhitelistNames(t *testing.T) {
	for _, tc := range []struct {
		name, ignoreFile, cmd string
	}{
		{"walked", "sub/.ignore", "rg TODO"},
		{"parent", ".gitignore", "rg TODO sub"},
		{"root of the walk", "sub/.rgignore", "rg TODO sub"},
		{"exclude", ".git/info/exclude", "rg TODO"},
		{"exclude, an operand", ".git/info/exclude", "rg TODO sub"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			mkdir(t, filepath.Join(root, ".git", "info"))
			mkdir(t, filepath.Join(root, "sub"))
			write(t, filepath.Join(root, "sub", ".env"), "TODO K=v\n")
			write(t, filepath.Join(root, "main.go"), "package main\n")
			opts := Options{WorkspaceRoot: root, Cwd: root, Files: OSFiles{}}
			if v := Check(tc.cmd, opts); v.Decision != Allow {
				t.Fatalf("without a whitelist, Check(%q) = %v %q, want allow", tc.cmd, v.Decision, v.Reasons)
			}
			write(t, filepath.Join(root, tc.ignoreFile), "*.log\n!.env\n")
			if v := Check(tc.cmd, opts); v.Decision != Prompt || !strings.Contains(strings.Join(v.Reasons, "\n"), ".env") {
				t.Errorf("with %s whitelisting .env, Check(%q) = %v %q, want a prompt naming sub/.env", tc.ignoreFile, tc.cmd, v.Decision, v.Reasons)
			}
		})
	}
}
