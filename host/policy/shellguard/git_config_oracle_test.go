package shellguard

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// gitConfigList is git's own reading of a config file: its entries as
// name=value (`git config -f FILE --list -z`; a key with no value reads
// as empty, as the guard records it), or ok false when git refuses the
// file.
func gitConfigList(file string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "config", "-f", file, "--no-includes", "--list", "-z")
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		return "", false
	}
	var parts []string
	for _, e := range strings.Split(strings.TrimSuffix(stdout.String(), "\x00"), "\x00") {
		if e == "" {
			continue
		}
		name, value, _ := strings.Cut(e, "\n")
		parts = append(parts, name+"="+value)
	}
	return strings.Join(parts, ";"), true
}

// gitConfigPieces are what the generated files are made of: headers in
// both forms, keys, values quoted, escaped, continued and commented.
var gitConfigPieces = []string{"[core]", "[Core]", "[remote \"Or\\\"ig\"]", "[remote.Origin]", "[s \"a b\"]", "[x-y.Z]", "[", "]",
	"\n", "\n", "\n", " ", "\t", "fsmonitor", "Pager", "k", "k2", "a-b", " = ", "=", "\"", "\\", "\\\n", "\\n", "\\t", "\\\"",
	"#", ";", "val", "ue", " x", "\r", "\"q;#\"", "\" a  b \"", "1",
	"k = \" a  b \"\n", "v = \"x\ty\" ;c\n", "w = a\\\n  b\n"}

// TestGitConfigReadAsGitReadsIt: wherever both the guard's reader of git
// config files and git read a file, they read the same entries (`git
// config -f --list`): a file git reads one way must never be read another
// way by the guard, which looks in it for core.fsmonitor, core.pager and
// the like. Where the guard refuses, it asks; where git refuses, every
// git command fails on the file and runs nothing, so the guard may read
// more than git there (it does: a lone carriage return, a key run into
// the next header).
func TestGitConfigReadAsGitReadsIt(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "config")
	rng := rand.New(rand.NewPCG(68, 2))
	agreed := 0
	for range 1500 {
		var b strings.Builder
		b.WriteString([]string{"[core]\n", "[s \"Sub\"]\n", "", "[a.B]\n"}[rng.IntN(4)])
		for range 1 + rng.IntN(10) {
			b.WriteString(gitConfigPieces[rng.IntN(len(gitConfigPieces))])
		}
		src := b.String()
		es, err := parseGitConfig(src)
		if err != nil {
			continue
		}
		var parts []string
		for _, e := range es {
			parts = append(parts, e.name()+"="+e.value)
		}
		mine := strings.Join(parts, ";")
		if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		gits, ok := gitConfigList(file)
		if !ok {
			continue // git refuses the file: every git command then fails, running nothing
		}
		if gits != mine {
			t.Errorf("the guard reads %q as %q; git reads %q", src, mine, gits)
			continue
		}
		agreed++
	}
	if agreed < 200 {
		t.Fatalf("only %d generated files were read by the guard: the test exercises too little", agreed)
	}
	t.Logf("%d generated config files read alike by the guard and git", agreed)
}
