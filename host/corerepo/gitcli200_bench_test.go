package corerepo

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkGitCLIvsGoGit200Files: the repository operations an evolution
// run's review, promote and rollback do, on a core of 200 files, with this
// package's go-git code and with the git CLI in the hardened environment
// (cli), alternated within each iteration (the one first changes each
// time) so that the machine's load falls on both alike. Reported per
// operation: each side's mean in ms and the ratio cli/go-git. The figures
// are in BENCHMARKS.md (§27.3).
//
// Each go-git operation opens the repository first, as the host does per
// call; the CLI starts a process per step. The commit is of the whole
// tree with one file changed (go-git: Snapshot, every file hashed, the
// new objects written; cli: a fresh index, add, write-tree, commit-tree);
// the ref move is one compare-and-swap, durable on both sides.
func BenchmarkGitCLIvsGoGit200Files(b *testing.B) {
	src := b.TempDir()
	write200(b, src, 0)
	state, r, base := initFrom(b, src)
	gitDir := r.GitDir()
	// A second commit, one skill changed, for the diff and the ref moves.
	write200(b, src, 1)
	next, _, err := r.Snapshot(src, base, "one changed")
	if err != nil {
		b.Fatal(err)
	}
	const file = "agents/default/skills/s100/SKILL.md"
	want := []string{file}

	var gg, gc [4]time.Duration
	names := [4]string{"commit", "read-file", "ref-cas", "diff"}
	ops := func(i int) (goGit, cliOp [4]func()) {
		goGit = [4]func(){
			func() {
				o := open(b, state)
				if _, _, err := o.Snapshot(src, base, fmt.Sprint("m", i)); err != nil {
					b.Fatal(err)
				}
			},
			func() {
				c, err := open(b, state).commit(next)
				if err != nil {
					b.Fatal(err)
				}
				t, err := c.Tree()
				if err != nil {
					b.Fatal(err)
				}
				f, err := t.File(file)
				if err != nil {
					b.Fatal(err)
				}
				if s, err := f.Contents(); err != nil || !strings.Contains(s, "salt 1") {
					b.Fatalf("%q, %v", s, err)
				}
			},
			func() {
				from, to := base, next
				if i%2 == 1 {
					from, to = next, base
				}
				if err := open(b, state).Move(Update{Ref: "refs/demiurge/bench-gogit", Old: from, New: to}); err != nil {
					b.Fatal(err)
				}
			},
			func() {
				if got, err := open(b, state).ChangedPaths(base, next); err != nil || !slices.Equal(got, want) {
					b.Fatalf("%v, %v", got, err)
				}
			},
		}
		cliOp = [4]func(){
			func() {
				env := []string{"GIT_INDEX_FILE=" + filepath.Join(b.TempDir(), "index")}
				cli(b, gitDir, env, "--work-tree", src, "add", "-A", ".")
				tree := cli(b, gitDir, env, "write-tree")
				cli(b, gitDir, nil, "commit-tree", tree, "-p", base, "-m", fmt.Sprint("m", i))
			},
			func() {
				if s := cli(b, gitDir, nil, "cat-file", "blob", next+":"+file); !strings.Contains(s, "salt 1") {
					b.Fatalf("%q", s)
				}
			},
			func() {
				from, to := base, next
				if i%2 == 1 {
					from, to = next, base
				}
				// core.fsync=reference: the ref made durable before the
				// rename, as Move does (git 2.39 does not by default).
				cli(b, gitDir, nil, "-c", "core.fsync=reference", "update-ref", "refs/demiurge/bench-cli", to, from)
			},
			func() {
				if got := cli(b, gitDir, nil, "diff-tree", "-r", "--name-only", "--no-renames", base, next); got != file {
					b.Fatalf("%q", got)
				}
			},
		}
		return
	}
	// Both refs start at base.
	if err := r.Move(Update{Ref: "refs/demiurge/bench-gogit", New: base}); err != nil {
		b.Fatal(err)
	}
	cli(b, gitDir, nil, "update-ref", "refs/demiurge/bench-cli", base, "")
	i := 0
	for b.Loop() {
		goGit, cliOp := ops(i)
		for k := range names {
			timed := func(f func(), acc *time.Duration) {
				t0 := time.Now()
				f()
				*acc += time.Since(t0)
			}
			if i%2 == 0 {
				timed(goGit[k], &gg[k])
				timed(cliOp[k], &gc[k])
			} else {
				timed(cliOp[k], &gc[k])
				timed(goGit[k], &gg[k])
			}
		}
		i++
	}
	for k, n := range names {
		g, c := gg[k].Seconds()*1e3/float64(i), gc[k].Seconds()*1e3/float64(i)
		b.ReportMetric(g, n+"-gogit-ms")
		b.ReportMetric(c, n+"-cli-ms")
		b.ReportMetric(c/g, n+"-cli/gogit")
	}
}

func open(b *testing.B, state string) *Repo {
	r, err := Open(state)
	if err != nil {
		b.Fatal(err)
	}
	return r
}

// write200 writes a core of 200 files: agent.yaml, pipelines.yaml and 198
// skills; salt changes skill s100 only.
func write200(b *testing.B, dir string, salt int) {
	files := map[string]string{
		"agents/default/agent.yaml":     "name: default\ntoolsets: [coding]\n",
		"agents/default/pipelines.yaml": "input: [base_input]\n",
	}
	for n := range 198 {
		body := fmt.Sprintf("---\nname: s%03d\ndescription: skill %d\n---\n%s", n, n, strings.Repeat("Do the thing well.\n", 20))
		if n == 100 {
			body += fmt.Sprintf("salt %d\n", salt)
		}
		files[fmt.Sprintf("agents/default/skills/s%03d/SKILL.md", n)] = body
	}
	writeFiles(b, dir, files)
}
