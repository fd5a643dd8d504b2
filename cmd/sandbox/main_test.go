package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/egress"
	"demiurge.dev/shared/sandbox"
)

// The real binaries every test runs: the helper as `make build` builds it,
// the same helper built as if the kernel had no Landlock (a build tag, not
// reachable from a file or the environment), and the probe that tries the
// network and process attacks.
var helperBin, helperNoLandlockBin, probeBin string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "-launch" {
		os.Exit(launchMain(os.Args[2:]))
	}
	dir, err := os.MkdirTemp("", "sandbox-bins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	// Readable by an unprivileged user too (TestUnprivilegedLauncher).
	_ = os.Chmod(dir, 0o755)
	helperBin = filepath.Join(dir, "demiurge-sandbox")
	helperNoLandlockBin = filepath.Join(dir, "nolandlock", "demiurge-sandbox")
	probeBin = filepath.Join(dir, "probe")
	for _, b := range [][]string{
		{"-o", helperBin, "."},
		{"-o", filepath.Join(dir, sandbox.FirstStageName), "./first"},
		{"-tags", "demiurge_nolandlock", "-o", helperNoLandlockBin, "."},
		{"-o", probeBin, "./testdata/probe"},
	} {
		cmd := exec.Command("go", append([]string{"build"}, b...)...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0") // static, as make build builds it
		if out, err := cmd.CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "go build %v: %v\n%s", b, err, out)
			os.Exit(2)
		}
	}
	_ = os.Chmod(filepath.Dir(helperNoLandlockBin), 0o755)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Markers that must never appear in what a sandboxed command prints.
const (
	envSecret = "SECRET-MARKER-ENV"
	sshSecret = "SECRET-MARKER-SSH"
	keySecret = "SECRET-MARKER-KEY"
)

// fixture is one agent workspace with a core in it, a git repository, a
// home directory with an ssh key and a directory outside the workspace.
type fixture struct {
	root, ws, tmp, home, outside string
	// proxy is the host's egress proxy network mode goes through (no
	// allowance: loopback and private addresses stay refused).
	proxy *egress.Proxy
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	root := t.TempDir()
	f := fixture{root: root, ws: filepath.Join(root, "ws"), tmp: filepath.Join(root, "tmp"),
		home: filepath.Join(root, "home"), outside: filepath.Join(root, "outside")}
	files := map[string]string{
		"ws/agent.yaml":              "name: test\n",
		"ws/agent/tools/t.yaml":      "name: t\n",
		"ws/agent/mcp/m.json":        "{}\n",
		"ws/skills/s/SKILL.md":       "# s\n",
		"ws/.env":                    "TOKEN=" + envSecret + "\n",
		"ws/sub/.env.local":          "TOKEN=" + envSecret + "\n",
		"ws/certs/server.key":        keySecret + "\n",
		"ws/main.go":                 "package main\n\nfunc main() { println(\"built\") }\n",
		"ws/go.mod":                  "module example.test/hello\n\ngo 1.21\n",
		"home/.ssh/id_rsa":           sshSecret + "\n",
		"outside/readme":             "outside\n",
		"tmp/.keep":                  "",
		"home/.gitconfig":            "[user]\n\tname = t\n\temail = t@example.test\n[safe]\n\tdirectory = *\n",
		"ws/docs/readme.md":          "hello\n",
		"ws/agent/tools/.gitkeep":    "",
		"ws/agent/mcp/.gitkeep":      "",
		"ws/skills/s/extra/notes.md": "notes\n",
	}
	for rel, body := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	px, err := egress.Start(egress.Config{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	f.proxy = px
	git := exec.Command("git", "init", "-q", ".")
	git.Dir = f.ws
	git.Env = []string{"HOME=" + f.home, "PATH=/usr/bin:/bin"}
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	return f
}

// policy is what the host will pass for this workspace.
func (f fixture) policy(m sandbox.Mode) sandbox.Policy {
	proxy := ""
	if m == sandbox.Network {
		proxy = f.proxy.Socket()
	}
	return sandbox.Policy{
		Mode: m, Workspace: f.ws, TmpDir: f.tmp, Proxy: proxy,
		Protected: []string{
			filepath.Join(f.ws, "agent.yaml"), filepath.Join(f.ws, "agent", "tools"),
			filepath.Join(f.ws, "agent", "mcp"), filepath.Join(f.ws, "skills"),
			filepath.Join(f.ws, ".git", "config"), filepath.Join(f.ws, ".git", "hooks"),
		},
		ReadOnly: append([]string{filepath.Dir(probeBin), goroot()}, sandbox.UserConfigPaths(f.home)...),
	}
}

func goroot() string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "/usr/local/go"
	}
	return strings.TrimSpace(string(out))
}

// result is what one command did.
type result struct {
	stdout, stderr string
	exit           int
	// cpu is the CPU time the command used, the helper's and every
	// process it waited for included.
	cpu time.Duration
}

// wrapAndRun starts cmd (sh -c script) through the real helper under p
// and reports what it did; ctx is cmd's deadline.
func wrapAndRun(t *testing.T, ctx context.Context, cmd *exec.Cmd, p sandbox.Policy, script string) result {
	t.Helper()
	if err := sandbox.Wrap(cmd, helperBin, p); err != nil {
		t.Fatalf("wrap: %v", err)
	}
	var so, se strings.Builder
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("command %q did not finish within the deadline", script)
	}
	r := result{stdout: so.String(), stderr: se.String()}
	if cmd.ProcessState != nil {
		r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	case err != nil:
		t.Fatalf("run %q: %v", script, err)
	}
	return r
}

// run starts sh -c script in the workspace through the real helper (mode
// off: directly), with a deadline.
func (f fixture) run(t *testing.T, p sandbox.Policy, script string, env ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", script)
	cmd.Dir = f.ws
	cmd.Env = append([]string{
		"PATH=" + filepath.Join(goroot(), "bin") + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + f.home, "OUT=" + f.outside, "PROBE=" + probeBin,
		"GOCACHE=" + filepath.Join(f.tmp, "gocache"), "GOPATH=" + filepath.Join(f.tmp, "gopath"),
		"GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GIT_CONFIG_NOSYSTEM=1",
	}, env...)
	r := wrapAndRun(t, ctx, cmd, p, script)
	if r.exit == 125 && strings.Contains(r.stderr, "demiurge-sandbox:") {
		t.Fatalf("the helper refused to start %q: %s", script, r.stderr)
	}
	return r
}
