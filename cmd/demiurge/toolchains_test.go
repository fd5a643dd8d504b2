package main

import (
	"os"
	"os/exec"
	"path/filepath"
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
