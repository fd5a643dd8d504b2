package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// testDeps are the machine's packages some tests need (scripts/test-deps
// installs them for `make test`), each with the probe that finds it.
var testDeps = map[string]func() error{
	"python3-grpcio": func() error {
		return exec.Command(python, "-c", "import grpc, cryptography").Run()
	},
}

// unavailable says why PKG is missing when `make test` tried to install it
// and could not: the line scripts/test-deps wrote for it in the file
// DEMIURGE_TEST_UNAVAILABLE names. Empty when PKG is not listed there.
func unavailable(pkg string) string {
	f, err := os.Open(os.Getenv("DEMIURGE_TEST_UNAVAILABLE"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.SplitN(sc.Text(), "\t", 3)
		if len(fields) == 3 && fields[0] == pkg {
			return pkg + " is not installed: " + fields[2] + "; skipped: " + fields[1]
		}
	}
	return ""
}

// checkDep says what a test needing PKG must do: nothing (both empty),
// skip (PKG is missing and `make test` recorded why it could not install
// it) or fail (PKG is missing for no recorded reason: a machine where
// make test would have installed it).
func checkDep(pkg string) (skip, fail string) {
	err := testDeps[pkg]()
	if err == nil {
		return "", ""
	}
	if why := unavailable(pkg); why != "" {
		return why, ""
	}
	return "", fmt.Sprintf("%s is missing (%v): `make test` installs it (scripts/test-deps), or apt-get install %s", pkg, err, pkg)
}

func needDep(t testing.TB, pkg string) {
	t.Helper()
	skip, fail := checkDep(pkg)
	if skip != "" {
		t.Skip(skip)
	}
	if fail != "" {
		t.Fatal(fail)
	}
}

// depCmds: `needs PKG` in a script fails it when PKG is missing for no
// recorded reason. A script skips first, with the recorded reason, by
//
//	[unavailable:PKG] skip $SKIP_PKG
//
// (PKG's dashes as underscores in the variable; depEnv sets it).
var depCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"needs": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 || testDeps[args[0]] == nil {
			ts.Fatalf("usage: needs PKG (one of the packages in testDeps)")
		}
		if _, fail := checkDep(args[0]); fail != "" {
			ts.Fatalf("%s", fail)
		}
	},
}

// depCondition answers [unavailable:PKG].
func depCondition(cond string) (bool, error) {
	pkg, ok := strings.CutPrefix(cond, "unavailable:")
	if !ok || testDeps[pkg] == nil {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	skip, _ := checkDep(pkg)
	return skip != "", nil
}

// depEnv sets SKIP_PKG to each missing package's recorded reason.
func depEnv(env *testscript.Env) {
	for pkg := range testDeps {
		if skip, _ := checkDep(pkg); skip != "" {
			env.Setenv("SKIP_"+strings.ReplaceAll(pkg, "-", "_"), skip)
		}
	}
}

// TestMissingDepSkipsOnlyWithARecordedReason: a package make test could not
// install skips its tests with the recorded reason; one missing for no
// recorded reason fails them.
func TestMissingDepSkipsOnlyWithARecordedReason(t *testing.T) {
	testDeps["absent-for-test"] = func() error { return exec.ErrNotFound }
	defer delete(testDeps, "absent-for-test")
	report := filepath.Join(t.TempDir(), "unavailable")
	t.Setenv("DEMIURGE_TEST_UNAVAILABLE", report)

	if skip, fail := checkDep("absent-for-test"); skip != "" || !strings.Contains(fail, "make test") {
		t.Errorf("no report: skip %q, fail %q; want a failure naming make test", skip, fail)
	}
	line := "absent-for-test\tthe tests of this check\tnot root and sudo -n is not allowed\n"
	if err := os.WriteFile(report, []byte("other\tx\ty\n"+line), 0o600); err != nil {
		t.Fatal(err)
	}
	skip, fail := checkDep("absent-for-test")
	if fail != "" || !strings.Contains(skip, "not root and sudo -n is not allowed") || !strings.Contains(skip, "the tests of this check") {
		t.Errorf("recorded: skip %q, fail %q; want a skip with the reason and the tests", skip, fail)
	}
	if skip, fail := checkDep("python3-grpcio"); skip != "" && fail != "" {
		t.Errorf("python3-grpcio: both skip %q and fail %q", skip, fail)
	}
}

// TestTestDepsScriptSaysWhatSkipsWithoutAnInstaller runs scripts/test-deps
// on a PATH without apt-get, zsh or fish: it installs nothing, and its
// report names each missing package, the tests that skip and why.
func TestTestDepsScriptSaysWhatSkipsWithoutAnInstaller(t *testing.T) {
	bin := t.TempDir()
	for _, prog := range []string{"bash", "mkdir", "dirname", "mv", "mktemp", "grep", "tail", "rm", "id", "cat"} {
		path, err := exec.LookPath(prog)
		if err != nil {
			t.Skipf("%s: %v", prog, err)
		}
		if err := os.Symlink(path, filepath.Join(bin, prog)); err != nil {
			t.Fatal(err)
		}
	}
	report := filepath.Join(t.TempDir(), "deps", "unavailable")
	cmd := exec.Command(filepath.Join(bin, "bash"), "../../scripts/test-deps", report)
	cmd.Env = []string{"PATH=" + bin}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/test-deps: %v\n%s", err, out)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"zsh\tthe zsh completion script (cmd/demiurge completion_zsh.txtar)\tno apt-get on this machine",
		"fish\tthe fish completion script",
		"strace\tthe shell guard strace oracle",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report lacks %q:\n%s", want, b)
		}
	}
	if !strings.Contains(string(out), "without zsh, these skip: the zsh completion script") {
		t.Errorf("the script did not say what skips:\n%s", out)
	}
	if strings.Contains(string(out), "installing") {
		t.Errorf("installed without an installer:\n%s", out)
	}
}
