package shellguard

import "testing"

// TestGitOptions: git's options are a closed world per subcommand; an
// abbreviation, an unlisted negation or an option that writes, runs a
// program or opens a pager asks.
func TestGitOptions(t *testing.T) {
	ws := repoWorld(t, merge(gitDirFiles("ws/.git", plainConfig), map[string]string{"ws/pats.txt": "x", "ws/.env": "K=v"}))
	for _, tc := range []struct {
		cmd  string
		want Decision
	}{
		{"git status -sb", Allow},
		{"git status --porcelain=v2 -uno", Allow},
		{"git status --short --branch -- src", Allow},
		{"git log -5 --oneline", Allow},
		{"git log -n 3 --format=%H", Allow},
		{"git log -n3 --stat", Allow},
		{"git log --since=2.weeks --author alice -- main.go", Allow},
		{"git log -L 1,5:main.go", Allow},
		{"git log -p -U3 --no-ext-diff --no-textconv -- main.go", Allow},
		{"git log -p -U3 --no-ext-diff --no-textconv", Prompt}, // history's patches, unlimited (stop 51)
		{"git diff --cached --stat", Allow},
		{"git diff -M50% HEAD~2 HEAD -- main.go", Allow},
		{"git diff -M50% HEAD~2 HEAD", Prompt}, // history's patches, unlimited (stop 51)
		{"git diff --word-diff=color -w", Allow},
		{"git show --name-only HEAD~1", Allow},
		{"git show -s --format=%an HEAD", Allow},
		{"git blame -L 10,20 -w main.go", Allow},
		{"git blame --contents pats.txt main.go", Allow},
		{"git grep -n -e foo -- '*.go'", Allow},
		{"git grep -f pats.txt", Allow},
		{"git grep -C2 -i foo", Allow},
		{"git grep -3 foo", Allow},
		{"git rev-parse --show-toplevel", Allow},
		{"git rev-parse --short=8 HEAD", Allow},
		{"git ls-files -z --others --exclude-standard", Allow},
		{"git cat-file -p HEAD:main.go", Allow},
		{"git for-each-ref --sort=-committerdate --format='%(refname)'", Allow},
		{"git stash list --oneline", Allow},
		{"git stash show -p -- main.go", Allow},
		{"git stash show -p", Prompt}, // history's patches, unlimited (stop 51)
		{"git worktree list --porcelain", Allow},
		{"git reflog show -5", Allow},
		{"git reflog", Allow},
		{"git log --grep", Allow}, // a value missing at the end: git refuses it
		{"git log -n", Allow},
		{"git log -L", Allow},
		{"git log -L 1,5:.env", Prompt}, // -L's file is read
		{"git log -L1,5:.env", Prompt},
		{"git log -L 1,5:pats.txt", Allow},
		{"git config -f .env --list", Prompt}, // the file git config reads is judged
		{"git config --file .env --get a.b", Prompt},
		{"git config --file=.env --list", Prompt},
		{"git config -f pats.txt --list", Allow},
		{"git config --blob", Prompt},
		{"git config --file=pats.txt --list", Allow}, // --file= and --blob= attached read too
		{"git config --blob=HEAD:pats.txt --list", Allow},
		{"git config -f pats.txt user.name", Allow}, // the file's value is no operand: one key, a get
		{"git config -f pats.txt user.name x", Prompt},
		{"git config -f /etc/hostname --list", Prompt}, // the file is read as a path: outside the workspace
		{"git config user.name list", Prompt},          // a set whose value is list, not git 2.46's list
		{"git config user.email get", Prompt},
		{"git config edit", Prompt}, // git 2.46: runs an editor on the configuration
		{"git config set user.name x", Prompt},
		{"git config unset user.name", Prompt},
		{"git config get user.name", Allow},
		{"git config list --show-origin", Allow},
		{"git stash", Prompt},
		{"git show :.env", Prompt},       // the index's copy
		{"git show HEAD:a:.env", Prompt}, // a path with a colon: its last part
		{"git show HEAD:.env:x", Prompt}, // and its first
		{"git stash -- list", Prompt},    // stashes the file named list
		{"git stash -- show", Prompt},
		{"git stash -p list", Prompt},
		{"git worktree -- list", Prompt},
		{"git reflog -5", Allow},
		{"git reflog expire --expire=now --all", Prompt}, // drops what recovers lost commits
		{"git reflog delete HEAD@{1}", Prompt},
		{"git reflog drop main", Prompt},
		{"git reflog write refs/heads/x a b msg", Prompt},
		// Writes, programs, pagers.
		{"git log --output=/tmp/x", Prompt},
		{"git log --outp=/tmp/x", Prompt},
		{"git log --out /tmp/x", Prompt},
		{"git diff --ext-diff", Prompt},
		{"git diff --ext", Prompt},
		{"git diff --textconv", Prompt},
		{"git diff --textc", Prompt},
		{"git log --show-signature", Prompt},
		{"git log --show-sig", Prompt},
		{"git show --show-signature HEAD", Prompt},
		{"git grep -Ovim foo", Prompt},
		{"git grep -O vim foo", Prompt},
		{"git grep --open-files-in-pager foo", Prompt},
		{"git grep --open foo", Prompt},
		{"git grep --textconv foo", Prompt},
		{"git cat-file --textconv HEAD:x", Prompt},
		{"git cat-file --filters HEAD:x", Prompt},
		{"git cat-file --filt HEAD:x", Prompt},
		{"git log --remerge-diff", Prompt},
		// Abbreviations and negations not listed; unknown options.
		{"git log --onel", Prompt},
		{"git status --porc", Prompt},
		{"git log --no-oneline", Prompt},
		{"git status --no-short", Prompt},
		{"git diff --no-no-ext-diff", Prompt},
		{"git status -q", Prompt},
		{"git log -Q", Prompt},
		{"git status -sbX", Prompt},
		{"git diff --frobnicate", Prompt},
		{"git status --long=x", Prompt},
		// Files named in options and operands.
		{"git grep -f .env", Prompt},
		{"git grep -f ../../etc/passwd", Prompt},
		{"git blame --contents /etc/shadow main.go", Prompt},
		{"git diff -O/etc/shadow", Prompt},
		{"git show HEAD:.env", Prompt},
		{"git show HEAD:sub:.env", Prompt},
		{"git log -L 1,2:.env", Prompt},
		{"git log -- .env", Prompt},
		{"git grep --no-index foo", Prompt}, // the tree holds .env
	} {
		v := Check(tc.cmd, Options{WorkspaceRoot: ws, Cwd: ws, Files: OSFiles{}})
		if v.Decision != tc.want {
			t.Errorf("Check(%q) = %v %q, want %v", tc.cmd, v.Decision, v.Reasons, tc.want)
		}
	}
}

// TestGitTablesClosed: every read-only subcommand has an option table or
// a shape check, and no table lists an option that writes, runs a
// program or opens a pager.
func TestGitTablesClosed(t *testing.T) {
	shaped := map[string]bool{"branch": true, "tag": true, "remote": true, "config": true}
	for sub := range gitReadOnly {
		if _, ok := gitTables[sub]; !ok && !shaped[sub] {
			t.Errorf("git %s is read-only but has no option table", sub)
		}
	}
	forbidden := []string{"--output", "--ext-diff", "--textconv", "--open-files-in-pager", "-O", "--show-signature",
		"--exec", "--filters", "--paginate", "--upload-pack", "--receive-pack", "--remerge-diff", "--edit", "--write"}
	for sub, tbl := range gitTables {
		for _, o := range forbidden {
			if o == "-O" && sub != "grep" {
				continue // diff's -O<orderfile> only reads a file
			}
			if tbl.flags[o] || tbl.values[o] || tbl.optional[o] {
				t.Errorf("git %s lists %s", sub, o)
			}
		}
	}
}
