package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"demiurge.dev/host/plugins/plugintest"
)

var (
	binOnce     sync.Once
	binDir      string // the launcher, the full host, the front end and the plugins
	examplesDir string // the example third-party toolset
	binErr      error
)

// builtBinaries finds the binaries `make build` made (DEMIURGE_TEST_PLUGIN_DIR
// names bin/), else builds them once for the whole test binary.
func builtBinaries(t testing.TB) (bin, examples string) {
	t.Helper()
	binOnce.Do(func() {
		tmp, err := os.MkdirTemp("", "demiurge-launcher-")
		if err != nil {
			binErr = err
			return
		}
		examplesDir = filepath.Join(tmp, "examples")
		if binErr = plugintest.Build(examplesDir, "textstats", "demiurge.dev/sdk/example/textstats"); binErr != nil {
			return
		}
		if dir := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR"); dir != "" {
			binDir = dir
			for _, name := range []string{"demiurge", HostBinary, FrontBinary, "demiurge-toolset-coding", "demiurge-toolset-demiurge_control"} {
				if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
					binErr = err
					return
				}
			}
			return
		}
		binDir = filepath.Join(tmp, "bin")
		if binErr = plugintest.Build(binDir, "coding", "demiurge.dev/plugins/coding"); binErr != nil {
			return
		}
		if binErr = plugintest.Build(binDir, "demiurge_control", "demiurge.dev/plugins/control"); binErr != nil {
			return
		}
		for out, pkg := range map[string]string{"demiurge": ".", HostBinary: "demiurge.dev/cmd/demiurge", FrontBinary: "demiurge.dev/cmd/front"} {
			if b, err := exec.Command("go", "build", "-o", filepath.Join(binDir, out), pkg).CombinedOutput(); err != nil {
				binErr = &buildError{pkg, err, b}
				return
			}
		}
	})
	if binErr != nil {
		t.Fatalf("binaries (run make build, or let the test build them): %v", binErr)
	}
	return binDir, examplesDir
}

type buildError struct {
	pkg    string
	err    error
	output []byte
}

func (e *buildError) Error() string {
	return "build " + e.pkg + ": " + e.err.Error() + "\n" + string(e.output)
}

// rig is one private installation: copies of the binaries (tests replace
// and touch them), a state directory, a home and a workspace.
type rig struct {
	t                    testing.TB
	bin, state, ws, home string
	examples             string
}

func newRig(t testing.TB) *rig {
	src, examples := builtBinaries(t)
	root := t.TempDir()
	r := &rig{t: t, bin: filepath.Join(root, "bin"), state: filepath.Join(root, "state"),
		ws: filepath.Join(root, "ws"), home: filepath.Join(root, "home"), examples: examples}
	for _, d := range []string{r.bin, r.ws, r.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"demiurge", HostBinary, FrontBinary, "demiurge-toolset-coding", "demiurge-toolset-coding.sha256",
		"demiurge-toolset-demiurge_control", "demiurge-toolset-demiurge_control.sha256"} {
		copyFile(t, filepath.Join(src, name), filepath.Join(r.bin, name))
	}
	if err := os.WriteFile(filepath.Join(r.ws, "words.txt"), []byte("one two three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

func copyFile(t testing.TB, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

type result struct {
	code           int
	stdout, stderr string
}

func (r result) String() string {
	return "exit " + strconv.Itoa(r.code) + "\n--- stdout\n" + r.stdout + "--- stderr\n" + r.stderr
}

// exec runs a binary of the rig (r.command).
func (r *rig) exec(binary, stdin string, env []string, args ...string) result {
	r.t.Helper()
	cmd := r.command(binary, env, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return r.ended(cmd, cmd.Run(), &stdout, &stderr)
}

// command is a binary of the rig as "demiurge" (argv[0] is what the
// launcher keeps when it execs the host, and what help text shows), in
// the workspace, with env added to PATH and HOME.
func (r *rig) command(binary string, env []string, args ...string) *exec.Cmd {
	return &exec.Cmd{Path: filepath.Join(r.bin, binary), Args: append([]string{"demiurge"}, args...), Dir: r.ws,
		Env: append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.home}, env...)}
}

// ended is what cmd answered: err is its Run's or Wait's, an exit
// status; any other error fails the test.
func (r *rig) ended(cmd *exec.Cmd, err error, stdout, stderr fmt.Stringer) result {
	r.t.Helper()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		r.t.Fatalf("run %s %q: %v", filepath.Base(cmd.Path), cmd.Args[1:], err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// launcher runs bin/demiurge with --state first.
func (r *rig) launcher(args ...string) result {
	r.t.Helper()
	return r.exec("demiurge", "", nil, append([]string{"--state", r.state}, args...)...)
}

// host runs bin/demiurge-host directly, the way the launcher execs it.
func (r *rig) host(args ...string) result {
	r.t.Helper()
	return r.exec(HostBinary, "", nil, append([]string{"--state", r.state}, args...)...)
}

// hostLog is the file every full-host command opens for its log and the
// launcher never touches: its appearance says the host ran.
func (r *rig) hostLog() string { return filepath.Join(r.state, "logs", "host.log") }

// hostRan runs the launcher with args after removing the host log, and
// says whether the full host ran.
func (r *rig) hostRan(args ...string) (result, bool) {
	r.t.Helper()
	if err := os.Remove(r.hostLog()); err != nil && !os.IsNotExist(err) {
		r.t.Fatal(err)
	}
	res := r.launcher(args...)
	_, err := os.Stat(r.hostLog())
	return res, err == nil
}

// sameAsHost runs args through the launcher and the host directly and
// requires byte-identical results.
func (r *rig) sameAsHost(args ...string) result {
	r.t.Helper()
	l := r.launcher(args...)
	h := r.host(args...)
	if l != h {
		r.t.Errorf("%q: the launcher and the host differ\nlauncher: %s\nhost: %s", args, l, h)
	}
	return l
}
