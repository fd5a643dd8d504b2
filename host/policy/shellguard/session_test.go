package shellguard

import "testing"

// sessionCommands are the literal read-only commands of a typical coding
// session. Each must run unasked in a realistic workspace: the figure in
// BENCHMARKS.md ("share that still runs unasked") is this test's count.
var sessionCommands = []string{
	"git status", "git status -sb", "git log --oneline -20", "git log -p -3 -- main.go", "git diff",
	"git diff --cached", "git diff HEAD~1 -- src", "git show HEAD", "git show --stat HEAD~2", "git blame -L 10,20 main.go",
	"ls", "ls -la", "ls -lah src", "ls -1 cmd", "ls -R internal",
	"cat go.mod", "cat -n main.go", "cat README.md CONTRIBUTING.md",
	"head -n 50 main.go", "head -20 CHANGELOG.md", "head -c 200 data.json",
	"tail -n 100 build.log", "tail -f server.log", "tail -n +20 main.go",
	"wc -l main.go", "wc -l main.go util.go", "wc -c data.json",
	`grep -rn "TODO" src`, "grep -rn 'func main' .", "grep -n import main.go", "grep -ri --include='*.go' context .",
	"grep -c error build.log", "grep -rl deprecated docs", "grep -E 'foo|bar' notes.txt", "grep -v '^#' config.ini",
	"grep -A 3 -B 2 panic build.log",
	"rg TODO", "rg -n 'fn main' src", "rg --files", "rg -t go Context", "rg -i error -g '*.log'", "rg -l Deprecated",
	"rg -w Config --type-add 'web:*.{html,css}'",
	"find . -name '*.go' -type f", "find src -maxdepth 2 -type d", "find . -name '*.test' -mtime -1",
	"find . -type f -size +1M", "find . -path ./vendor -prune -o -name '*.go' -print",
	"sort -u names.txt", "sort -n -k2 scores.txt", "sort -t, -k3 -r data.csv",
	"diff a.txt b.txt", "diff -u old.go new.go", "diff -ru v1 v2",
	"uniq -c sorted.txt", "cut -d, -f1 data.csv", "jq .version package.json", "file main.go", "stat go.sum",
	"du -sh .", "tree -L 2", "sed -n '1,40p' main.go", "date +%F", "pwd", "which go",
}

func TestSessionCommandsRunUnasked(t *testing.T) {
	if len(sessionCommands) < 60 {
		t.Fatalf("the session list has %d commands; keep at least 60", len(sessionCommands))
	}
	allowed := 0
	for _, c := range sessionCommands {
		v := Check(c, tableOptions)
		if v.Decision == Allow && v.Risk == Low {
			allowed++
			continue
		}
		t.Errorf("Check(%q) = %v/%v %q, want allow/low", c, v.Decision, v.Risk, v.Reasons)
	}
	t.Logf("session commands that run unasked: %d of %d", allowed, len(sessionCommands))
}
