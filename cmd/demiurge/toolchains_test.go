package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestToolchainsFromHomeRunSandboxed: under the default workspace-write
// mode the toolchains the operator's PATH offers from the home directory
// run (pyenv's python3 was "Permission denied", exit 126), go, node and
// npm too, and rustup's cargo, while the rest of the home stays unreadable; `sandbox status`
// lists what was opened. Runs with this machine's real toolchains.
func TestToolchainsFromHomeRunSandboxed(t *testing.T) {
	shims := ""
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if strings.HasSuffix(d, "/.pyenv/shims") {
			shims = d
		}
	}
	if shims == "" {
		t.Skip("no pyenv on this machine's PATH")
	}
	home := filepath.Dir(filepath.Dir(shims))
	// rustup's cargo finds its toolchains through RUSTUP_HOME, which the
	// host sets for the command (its HOME is the runtime home).
	cargo := ""
	if strings.Contains(os.Getenv("PATH"), "/.cargo/bin") && os.Getenv("RUSTUP_HOME") == "" {
		cargo = "cargo --version && "
	}
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	cmd := exec.Command(bin, "--state", t.TempDir(), "--plugin-dir", builtin, "--workspace", t.TempDir(),
		"--approve", "allow:terminal", "tools", "call", "terminal",
		`{"command":"`+cargo+`python3 --version && go version && node --version && npm --version >/dev/null && echo toolchains-ran; ls `+home+`"}`)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "Python 3") || !strings.Contains(string(out), "toolchains-ran") || cargo != "" && !strings.Contains(string(out), "cargo 1.") {
		t.Errorf("the PATH's toolchains did not run sandboxed:\n%s", out)
	}
	if !strings.Contains(string(out), "cannot open directory '"+home+"'") {
		t.Errorf("the home directory %s became readable:\n%s", home, out)
	}
	st, _ := exec.Command(bin, "--plugin-dir", builtin, "sandbox", "status").CombinedOutput()
	if !strings.Contains(string(st), "toolchain (r-x):    "+home+"/.pyenv\n") {
		t.Errorf("sandbox status does not list %s/.pyenv:\n%s", home, st)
	}
}

// TestSandboxRefusedProgramShowsFailed: a toolchain the sandbox does not
// open (rustup's cargo when the PATH does not offer ~/.cargo/bin) exits
// 126 with a bare "Permission denied"; the card says it failed and why,
// and the model's view carries the same note.
func TestSandboxRefusedProgramShowsFailed(t *testing.T) {
	cargo := ""
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if strings.HasSuffix(d, "/.cargo/bin") && fileExists(filepath.Join(d, "cargo")) {
			cargo = filepath.Join(d, "cargo")
		}
	}
	if cargo == "" {
		t.Skip("no rustup cargo on this machine's PATH")
	}
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	call := func(flags ...string) string {
		cmd := exec.Command(bin, append([]string{"--state", t.TempDir(), "--plugin-dir", builtin, "--workspace", t.TempDir(),
			"--approve", "allow:terminal", "tools", "call"}, append(flags, "terminal", `{"command":"`+cargo+` --version"}`)...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "PATH=/usr/bin:/bin")
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	out := call()
	if !strings.Contains(out, "exit code: 126") || !strings.Contains(out, "Permission denied") {
		t.Fatalf("the premise: cargo outside the PATH's toolchains was not refused by the sandbox:\n%s", out)
	}
	if !strings.Contains(out, "FAILED: exit 126: a program could not be executed; under the workspace-write sandbox") {
		t.Errorf("the card does not say the command failed and why:\n%s", out)
	}
	if js := call("--json"); !strings.Contains(js, `exit 126: a program could not be executed`) {
		t.Errorf("the model's view does not say why:\n%s", js)
	}
}

// TestSandboxedCachesArePrivateToTheWorkspace: a toolchain's writable
// cache (go's module cache under $HOME/go/pkg/mod here) that a sandboxed
// command poisons in one workspace is not what an unconfined command
// (--sandbox off) or a sandboxed command in another workspace of the same
// state reads; the workspace's own later sandboxed commands keep it (it
// is a cache). The operator's real module cache stays read-only.
func TestSandboxedCachesArePrivateToTheWorkspace(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	state, a, b := t.TempDir(), t.TempDir(), t.TempDir()
	run := func(ws, mode, command string) string {
		cmd := exec.Command(bin, "--state", state, "--plugin-dir", builtin, "--workspace", ws, "--sandbox", mode,
			"--approve", "allow:terminal", "tools", "call", "terminal", `{"command":`+strconv.Quote(command)+`}`)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, _ := cmd.CombinedOutput()
		return string(out)
	}
	plant := `mkdir -p "$(go env GOMODCACHE)/cache/download" && echo poisoned > "$(go env GOMODCACHE)/cache/download/planted" && go env GOMODCACHE`
	out := run(a, "workspace-write", plant)
	if !strings.Contains(out, "/runtime/sandbox-home/") {
		t.Errorf("the sandboxed go's module cache is not in the workspace's sandbox home:\n%s", out)
	}
	look := `cat "$(go env GOMODCACHE)/cache/download/planted" 2>/dev/null || echo absent`
	if out := run(b, "workspace-write", look); !strings.Contains(out, "absent") || strings.Contains(out, "poisoned") {
		t.Errorf("another workspace's sandboxed go reads the poisoned cache:\n%s", out)
	}
	if out := run(a, "off", look); !strings.Contains(out, "absent") || strings.Contains(out, "poisoned") {
		t.Errorf("an unconfined go reads the cache a sandboxed command wrote:\n%s", out)
	}
	if out := run(a, "workspace-write", look); !strings.Contains(out, "poisoned") {
		t.Errorf("the workspace's own cache did not persist between its sandboxed commands:\n%s", out)
	}
	// The operator's module cache (a GOPATH on the PATH) is readable, never writable.
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if filepath.Base(d) != "bin" || filepath.Base(filepath.Dir(d)) != "go" || !fileExists(filepath.Join(filepath.Dir(d), "pkg", "mod")) {
			continue
		}
		mod := filepath.Join(filepath.Dir(d), "pkg", "mod")
		if out := run(a, "workspace-write", `touch `+mod+`/demiurge-probe && echo WROTE; ls -d `+mod); strings.Contains(out, "\nWROTE\n") || !strings.Contains(out, "\n"+mod+"\n") {
			os.Remove(filepath.Join(mod, "demiurge-probe"))
			t.Errorf("the operator's module cache %s is writable or unreadable to a sandboxed command:\n%s", mod, out)
		}
	}
}
