package corerepo

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The git CLI in the hardened environment the host would need (no system
// or global configuration, no hooks, no protocols, no fsmonitor), against
// this package's go-git code, for each operation the host performs. The
// figures are in BENCHMARKS.md ("Core repository").

var hardenedEnv = []string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
	"HOME=/nonexistent", "GIT_TERMINAL_PROMPT=0", "GIT_ATTR_NOSYSTEM=1", "LC_ALL=C",
	"GIT_AUTHOR_NAME=d", "GIT_AUTHOR_EMAIL=d@d", "GIT_COMMITTER_NAME=d", "GIT_COMMITTER_EMAIL=d@d"}

func cli(b *testing.B, gitDir string, env []string, args ...string) string {
	a := append([]string{"-c", "core.hooksPath=/dev/null", "-c", "protocol.allow=never", "-c", "core.fsmonitor=false", "--git-dir", gitDir}, args...)
	cmd := exec.Command("git", a...)
	cmd.Env = append(append([]string{}, hardenedEnv...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		b.Fatalf("git %v: %v %s", args, err, errb.String())
	}
	return strings.TrimSpace(out.String())
}

// cliCommit: a temporary index, add, write-tree, commit-tree, update-ref
// with the old value.
func cliCommit(b *testing.B, gitDir, dir, parent string) string {
	env := []string{"GIT_INDEX_FILE=" + filepath.Join(b.TempDir(), "index")}
	cli(b, gitDir, env, "--work-tree", dir, "add", "-A", ".")
	tree := cli(b, gitDir, env, "write-tree")
	args := []string{"commit-tree", tree, "-m", "m"}
	old := strings.Repeat("0", 40)
	if parent != "" {
		args, old = append(args, "-p", parent), parent
	}
	c := cli(b, gitDir, nil, args...)
	cli(b, gitDir, nil, "update-ref", RefLive, c, old)
	return c
}

// benchTree is a core tree of 12 small files over two cores.
func benchTree(b *testing.B, dir string, salt int) {
	files := map[string]string{
		"agents/default/agent.yaml": "name: default\ntoolsets: [coding]\n", "agents/default/pipelines.yaml": "input: [base_input]\n",
		"agents/default/slots/a/slot.yaml": "entrypoint: module:run\n", "agents/default/slots/a/module.py": "def run(ctx, ev):\n    return {}\n",
		"agents/default/slots/b/slot.yaml": "entrypoint: module:run\n", "agents/default/slots/b/module.py": "def run(ctx, ev):\n    return {}\n",
		"agents/default/tools/note/tool.yaml": "description: x\n", "agents/default/tools/note/module.py": "def execute(ctx, args):\n    return 'x'\n",
		"agents/reviewer/agent.yaml": "name: reviewer\n", "agents/reviewer/pipelines.yaml": "input: [base_input]\n",
		"agents/reviewer/skills/review/SKILL.md": "---\nname: review\n---\n", "agents/reviewer/mcp/x.yaml": fmt.Sprintf("salt: %d\n", salt),
	}
	writeFiles(b, dir, files)
}

// writeFiles writes files (path: content) under dir.
func writeFiles(b *testing.B, dir string, files map[string]string) {
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			b.Fatal(err)
		}
	}
}

// initFrom makes a repository in a fresh state directory from src's tree.
func initFrom(b *testing.B, src string) (state string, r *Repo, commit string) {
	state = b.TempDir()
	r, commit, err := Init(state, os.DirFS(src), "m")
	if err != nil {
		b.Fatal(err)
	}
	return state, r, commit
}

func BenchmarkGitInitCommit(b *testing.B) {
	src := b.TempDir()
	benchTree(b, src, 0)
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := Init(b.TempDir(), os.DirFS(src), "m"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cli", func(b *testing.B) {
		for b.Loop() {
			g := filepath.Join(b.TempDir(), "repo.git")
			cli(b, g, nil, "init", "--bare", "-q")
			cliCommit(b, g, src, "")
		}
	})
}

func BenchmarkGitCommitCAS(b *testing.B) {
	src := b.TempDir()
	benchTree(b, src, 0)
	b.Run("go-git", func(b *testing.B) {
		r, _, err := Init(b.TempDir(), os.DirFS(src), "m")
		if err != nil {
			b.Fatal(err)
		}
		i := 0
		for b.Loop() {
			i++
			benchTree(b, src, i)
			if _, _, err := r.Commit(src, "m", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cli", func(b *testing.B) {
		g := filepath.Join(b.TempDir(), "repo.git")
		cli(b, g, nil, "init", "--bare", "-q")
		parent := cliCommit(b, g, src, "")
		i := 0
		for b.Loop() {
			i++
			benchTree(b, src, i)
			parent = cliCommit(b, g, src, parent)
		}
	})
}

// The go-git figure includes Materialize's read-only copy, which the CLI
// figure (ls-tree + cat-file --batch, no files written) does not.
func BenchmarkGitReadTree(b *testing.B) {
	src := b.TempDir()
	benchTree(b, src, 0)
	state, r, commit := initFrom(b, src)
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			removeReadOnly(TreeDir(state, commit))
			if _, err := r.Materialize(commit); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cli", func(b *testing.B) {
		for b.Loop() {
			ls := cli(b, r.GitDir(), nil, "ls-tree", "-r", "-z", commit)
			var ids []string
			for _, e := range strings.Split(ls, "\x00") {
				if f := strings.Fields(e); len(f) >= 3 {
					ids = append(ids, f[2])
				}
			}
			cmd := exec.Command("git", "--git-dir", r.GitDir(), "cat-file", "--batch")
			cmd.Env, cmd.Stdin = hardenedEnv, strings.NewReader(strings.Join(ids, "\n")+"\n")
			if _, err := cmd.Output(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkGitResolveLive(b *testing.B) {
	state := b.TempDir()
	r, _, err := Init(state, Seed(), "m")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			r2, err := Open(state)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := r2.Live(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cli", func(b *testing.B) {
		for b.Loop() {
			cli(b, r.GitDir(), nil, "rev-parse", "--verify", RefLive+"^{commit}")
		}
	})
}

func BenchmarkGitCheckout(b *testing.B) {
	src := b.TempDir()
	benchTree(b, src, 0)
	r, commit, err := Init(b.TempDir(), os.DirFS(src), "m")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("go-git", func(b *testing.B) {
		for b.Loop() {
			if err := r.Checkout(commit, filepath.Join(b.TempDir(), "w")); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cli", func(b *testing.B) {
		for b.Loop() {
			d := b.TempDir()
			env := []string{"GIT_INDEX_FILE=" + filepath.Join(d, ".idx")}
			cli(b, r.GitDir(), env, "--work-tree", d, "read-tree", commit)
			cli(b, r.GitDir(), env, "--work-tree", d, "checkout-index", "-a")
		}
	})
}
