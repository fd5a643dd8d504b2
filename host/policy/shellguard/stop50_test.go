package shellguard

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// checkAll runs each command with opts and wants its decision.
func checkAll(t *testing.T, opts Options, cases map[string]Decision) {
	t.Helper()
	for cmd, want := range cases {
		if v := Check(cmd, opts); v.Decision != want {
			t.Errorf("Check(%q) = %v %q, want %v", cmd, v.Decision, v.Reasons, want)
		}
	}
}

// TestAGlobIsSeenAcrossQuotes: bash joins a word's parts before it
// matches, so an unquoted [ in one part and an unquoted ] in a later one
// make a glob (cat .en[v”] reads .env); a quoted or escaped ] does not
// close the bracket, and such a word is the literal name it spells. The
// real bash agrees with each row.
func TestAGlobIsSeenAcrossQuotes(t *testing.T) {
	w := newPathWorld(t)
	write(t, filepath.Join(w.ws, ".env"), "TOKEN=x\n")
	cases := map[string]Decision{
		`cat .en[v'']`:  Prompt,
		`cat .en[''v]`:  Prompt,
		`cat .en[v]''`:  Prompt,
		`cat .en[""v]`:  Prompt,
		`cat .en["x"v]`: Prompt,
		`cat .en[v]`:    Prompt,
		`cat .en[v"]"`:  Allow, // the file ".en[v]", missing
		`cat .en[v\]`:   Allow,
		`cat .en\[v]`:   Allow,
		`cat .en'['v]`:  Allow,
		`cat '.en[v]'`:  Allow,
		`cat README.md`: Allow,
		`cat sub/x.txt`: Allow,
	}
	checkAll(t, w.options(""), cases)
	if _, err := exec.LookPath("bash"); err != nil {
		return
	}
	for cmd, want := range cases {
		operand := strings.TrimPrefix(cmd, "cat ")
		if !strings.HasPrefix(operand, ".en") && !strings.HasPrefix(operand, "'.en") {
			continue
		}
		out, err := exec.Command("bash", "-c", "cd "+w.ws+" && printf '%s\\n' "+operand).Output()
		if err != nil {
			t.Fatal(err)
		}
		if globbed := strings.TrimSpace(string(out)) == ".env"; globbed != (want == Prompt) {
			t.Errorf("bash reads %q as %q; the row says %v", operand, strings.TrimSpace(string(out)), want)
		}
	}
}

// TestExecUnderAnotherNameAsks: exec -a chooses the argv[0] a program
// sees, and a multi-call program runs what that name says (exec -a rm
// busybox -f x removes x; exec -a sh busybox -c CODE runs CODE): asked,
// like env -a, with the command still judged for payloads.
func TestExecUnderAnotherNameAsks(t *testing.T) {
	checkAll(t, tableOptions, map[string]Decision{
		"exec -a rm busybox -f x":     Prompt,
		"exec -a sh busybox -c id":    Prompt,
		"exec -a x ls":                Prompt,
		"exec -a rm busybox -rf /":    Block,
		"exec -c ls":                  Allow,
		"exec ls":                     Allow,
		"exec -a sh -- busybox -c id": Prompt,
		"exec -a rm toybox -rf /":     Block,
		"exec -arm busybox -rf /":     Block,
		"exec -ca rm busybox -rf /":   Block, // a cluster: c, then a and its value
		"exec -cla rm busybox -rf /":  Block,
		"exec -carm busybox -rf /":    Block,
		"exec -ca rm busybox ls":      Prompt,
	})
}

// TestMultiCallProgramsOnlyListUnasked: busybox and toybox run unasked
// bare or with an option that only prints; any other option asks
// (busybox --install -s DIR writes a link for every applet).
func TestMultiCallProgramsOnlyListUnasked(t *testing.T) {
	checkAll(t, tableOptions, map[string]Decision{
		"busybox":                    Allow,
		"busybox --list":             Allow,
		"busybox --list-full":        Allow,
		"toybox --long":              Allow,
		"busybox ls":                 Allow,
		"busybox --install -s ./bin": Prompt,
		"busybox --install":          Prompt,
		"busybox --inst -s bin":      Prompt,
		"toybox --install":           Prompt,
		"busybox --list x":           Prompt,
		"busybox -s":                 Prompt,
		"busybox --install rm -rf /": Block,
	})
}

// TestJqProgramFileAsks: jq -f runs a program file the guard does not
// read, and an import there reads JSON from any directory
// (import "config" as $c {search: "/home/u/.docker"}): asked. A program
// on the command line is read, and runs unasked when it imports nothing.
func TestJqProgramFileAsks(t *testing.T) {
	checkAll(t, tableOptions, map[string]Decision{
		"jq -f q.jq":             Prompt,
		"jq -nf q.jq":            Prompt,
		"jq -n -f q.jq data":     Prompt,
		"jq --from-file q.jq -n": Prompt,
		"jq -n 1":                Allow,
		"jq .a data.json":        Allow,
		`jq -n 'import "c" as $c {search: "/"}; $c'`: Prompt,
	})
}

// TestAListingThatFollowsLinksStaysInside: a listing that follows the
// symlinks it meets in a tree (find -L, find -follow, ls -RL, du -L,
// tree -l) lists what a link out of the workspace leads to, as ls of that
// directory would (which asks); the same listing of a tree without such
// a link, or one that does not follow links, runs unasked, and a
// credential-like name in the tree asks no more than ls does.
func TestAListingThatFollowsLinksStaysInside(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	mkdir(t, filepath.Join(ws, "src", "deep"))
	mkdir(t, filepath.Join(ws, "clean", "a"))
	mkdir(t, filepath.Join(base, "outside", "secrets"))
	write(t, filepath.Join(ws, "clean", ".env"), "T=1\n")
	write(t, filepath.Join(base, "outside", "secrets", "names.txt"), "x\n")
	if err := os.Symlink("../../../outside", filepath.Join(ws, "src", "deep", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../a", filepath.Join(ws, "clean", "a", "up")); err != nil {
		t.Fatal(err)
	}
	opts := Options{WorkspaceRoot: ws, Cwd: ws, Home: filepath.Join(base, "home"), Files: OSFiles{}}
	checkAll(t, opts, map[string]Decision{
		"find -L . -name x":          Prompt,
		"find -L -name x":            Prompt,
		"find -L src":                Prompt,
		"find . -follow -name x":     Prompt,
		"find src -name x -follow":   Prompt,
		"ls -RL":                     Prompt,
		"ls -R -L src":               Prompt,
		"ls --recursive --deref src": Prompt,
		"du -L":                      Prompt,
		"du -sL src":                 Prompt,
		"du --dereference src":       Prompt,
		"tree -l":                    Prompt,
		"tree -l src":                Prompt,
		"find -L clean -name x":      Allow,
		"ls -RL clean":               Allow,
		"du -L clean":                Allow,
		"tree -l clean":              Allow,
		"find . -name x":             Allow,
		"find -H . -name x":          Allow,
		"ls -R":                      Allow,
		"ls -L src":                  Allow,
		"du":                         Allow,
		"tree":                       Allow,
	})
}

// TestGitGrepUntrackedReadsTheTree: git grep --untracked searches the
// files git does not track too (with --no-exclude-standard, the ignored
// ones), so an untracked .env was printed unasked; it is judged as the
// tree read --no-index is, from the pathspecs as git reads them (after
// -e PAT, -A 3, a glob from its literal directory). Plain git grep
// searches tracked files only.
func TestGitGrepUntrackedReadsTheTree(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	mkdir(t, filepath.Join(ws, ".git"))
	mkdir(t, filepath.Join(ws, "src"))
	write(t, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(t, filepath.Join(ws, ".git", "config"), plainConfig)
	write(t, filepath.Join(ws, ".env"), "TOKEN=x\n")
	write(t, filepath.Join(ws, "src", "a.go"), "package a\n")
	opts := Options{WorkspaceRoot: ws, Cwd: ws, Home: filepath.Join(base, "home"), Files: OSFiles{}}
	checkAll(t, opts, map[string]Decision{
		"git grep --untracked TOKEN":                       Prompt,
		"git grep --untracked -e TOKEN":                    Prompt,
		"git grep --no-exclude-standard --untracked TOKEN": Prompt,
		"git grep --untracked TOKEN -- '*.env'":            Prompt,
		"git grep --untracked TOKEN -- :/":                 Prompt,
		"git grep --untracked package src":                 Allow,
		"git grep --untracked -A 1 -e package src":         Allow,
		"git grep --untracked -ie package src":             Allow,
		"git grep --untracked TOKEN 'src/*.go'":            Allow,
		"git grep --untracked TOKEN -- '*.go'":             Prompt, // any directory below the cwd
		"git grep --no-index -e TOKEN":                     Prompt,
		"git grep --no-index -A 1 TOKEN src":               Allow,
		"git grep --no-index TOKEN":                        Prompt,
		"git grep TOKEN":                                   Allow,
	})
	opts.Cwd = filepath.Join(ws, "src")
	checkAll(t, opts, map[string]Decision{
		"git grep --untracked package":    Allow,
		"git grep --untracked -e package": Allow,
		"git grep --untracked package ..": Prompt,
	})
}

// TestTimeOutputFileSeenPastItsFormat: GNU time -f FMT -o FILE writes
// FILE; the -o was looked for only up to the first word that is no
// option, which FMT is, so the write ran unasked.
func TestTimeOutputFileSeenPastItsFormat(t *testing.T) {
	checkAll(t, tableOptions, map[string]Decision{
		`\time -f x -o y ls`:                  Prompt,
		`\time --format x -o y ls`:            Prompt,
		`\time --format=x --output=y ls`:      Prompt,
		`\time -af x -o y ls`:                 Prompt,
		`\time -o y ls`:                       Prompt,
		`command time -f %e --append -o y ls`: Prompt,
		`\time -f x ls`:                       Allow,
		`\time -v ls`:                         Allow,
		`\time -f -o ls`:                      Allow, // -o is the format
	})
}

// TestRipgrepWhitelistsReadHiddenFiles: rg skips hidden entries unless
// something whitelists them, and a whitelist match is never hidden: a
// glob or type (rg -g '*' TOKEN) or a "!" line in .ignore, .rgignore or
// .gitignore, here or in a parent, made rg print .env unasked. With
// those, the walk reads hidden entries as rg will; without, it skips
// them as before.
func TestRipgrepWhitelistsReadHiddenFiles(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	mkdir(t, filepath.Join(ws, "sub"))
	mkdir(t, filepath.Join(ws, "wl", "deep"))
	mkdir(t, filepath.Join(ws, "clean"))
	write(t, filepath.Join(ws, ".env"), "TOKEN=x\n")
	write(t, filepath.Join(ws, "clean", "a.txt"), "a\n")
	write(t, filepath.Join(ws, "sub", ".env"), "TOKEN=x\n")
	write(t, filepath.Join(ws, "sub", ".gitignore"), "build/\n*.o\n")
	write(t, filepath.Join(ws, "wl", ".rgignore"), "!.env\n")
	write(t, filepath.Join(ws, "wl", "deep", ".env"), "TOKEN=x\n")
	opts := Options{WorkspaceRoot: ws, Cwd: ws, Home: filepath.Join(base, "home"), Files: OSFiles{}}
	checkAll(t, opts, map[string]Decision{
		"rg TOKEN sub":                     Allow,
		"rg TOKEN clean":                   Allow,
		"rg -g '*' TOKEN sub":              Prompt,
		"rg -g .env TOKEN sub":             Prompt,
		"rg --glob='*.env' TOKEN sub":      Prompt,
		"rg --iglob '*' TOKEN sub":         Prompt,
		"rg -t sh TOKEN sub":               Prompt,
		"rg --type-add 'e:.env' TOKEN sub": Prompt,
		"rg TOKEN wl":                      Prompt,
		"rg TOKEN wl/deep":                 Prompt, // a parent's whitelist, read as rg may
		"rg -T sh TOKEN sub":               Allow,
		"rg TOKEN clean/a.txt":             Allow,
	})
	if _, err := exec.LookPath("rg"); err != nil {
		return
	}
	for dir, reads := range map[string]bool{"sub": false, "wl": true} {
		out, _ := exec.Command("rg", "-l", "TOKEN", filepath.Join(ws, dir)).Output()
		if got := strings.Contains(string(out), ".env"); got != reads {
			t.Errorf("rg TOKEN %s read .env: %v, want %v (%q)", dir, got, reads, out)
		}
	}
}
