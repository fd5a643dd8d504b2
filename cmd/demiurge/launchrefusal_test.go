package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// copyPluginDir copies the built-in plugins, their checksums and the
// sandbox helper (not the packages) into dst.
func copyPluginDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() || !(strings.HasPrefix(e.Name(), "demiurge-toolset-") || strings.HasPrefix(e.Name(), "demiurge-sandbox")) {
			continue
		}
		copyExecutable(t, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
	}
}

func copyExecutable(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
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

// TestLaunchRefusesWhatASandboxedCommandCouldWrite: the host starts a
// plugin or the sandbox helper only when nothing but the operator could
// have written it. A plugin directory inside the workspace (make run in
// the checkout) is held read-only, but a plugin there that is a symlink
// into the workspace's writable part is not: the test shows a sandboxed
// command writing that very file, then the host refusing to start it.
// A plugin directory or a helper writable by every user is refused too.
func TestLaunchRefusesWhatASandboxedCommandCouldWrite(t *testing.T) {
	builtin, _ := testPlugins(t)
	bin := demiurgeBinary(t)
	call := func(pluginDir, ws, tool, args string) (string, error) {
		cmd := exec.Command(bin, "--state", t.TempDir(), "--plugin-dir", pluginDir, "--workspace", ws, "--sandbox", "workspace-write",
			"--approve", "allow:terminal", "tools", "call", tool, args)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	terminal := func(command string) string { return `{"command":` + strconv.Quote(command) + `}` }

	// The checkout: bin/ in the workspace, the coding plugin a symlink to
	// build/, where sandboxed commands write.
	ws := t.TempDir()
	copyPluginDir(t, builtin, filepath.Join(ws, "bin"))
	coding := filepath.Join(ws, "bin", "demiurge-toolset-coding")
	built := filepath.Join(ws, "build", "demiurge-toolset-coding")
	if err := os.MkdirAll(filepath.Dir(built), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(coding, built); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../build/demiurge-toolset-coding", coding); err != nil {
		t.Fatal(err)
	}
	copyExecutable(t, filepath.Join(builtin, "demiurge-toolset-coding.sha256"), coding+".sha256")

	// A sandboxed command (run by an intact plugin directory outside the
	// workspace) can write the file the symlink names.
	if out, err := call(builtin, ws, "terminal", terminal(`touch build/demiurge-toolset-coding && echo WROTE`)); err != nil || !strings.Contains(out, "WROTE") {
		t.Fatalf("the sandboxed command could not write build/ (the premise): %v\n%s", err, out)
	}
	out, err := call(filepath.Join(ws, "bin"), ws, "read_file", `{"path":"bin/demiurge-toolset-coding.sha256"}`)
	if err == nil || !strings.Contains(out, "toolset plugin coding is refused and was not started") ||
		!strings.Contains(out, "outside what the sandbox holds read-only, so a sandboxed command could have written it") ||
		!strings.Contains(out, built) {
		t.Fatalf("a plugin a sandboxed command could write was started (err %v):\n%s", err, out)
	}

	// The same binary as a file in bin/ starts.
	if err := os.Remove(coding); err != nil {
		t.Fatal(err)
	}
	copyExecutable(t, built, coding)
	if out, err := call(filepath.Join(ws, "bin"), ws, "read_file", `{"path":"bin/demiurge-toolset-coding.sha256"}`); err != nil || !strings.Contains(out, "demiurge-toolset-coding") {
		t.Fatalf("a plugin in the held plugin directory did not start: %v\n%s", err, out)
	}

	// Outside the workspace: a plugin directory every user can write.
	open := filepath.Join(t.TempDir(), "plugins")
	copyPluginDir(t, builtin, open)
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	out, err = call(open, other, "read_file", `{"path":"x"}`)
	if err == nil || !strings.Contains(out, "its directory "+open+" is writable by every user (mode -rwxrwxrwx)") || !strings.Contains(out, "chmod go-w") {
		t.Fatalf("a plugin in a directory every user can write was started (err %v):\n%s", err, out)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}

	// The helper writable by every user: the host does not run at all.
	if err := os.Chmod(filepath.Join(open, "demiurge-sandbox"), 0o777); err != nil {
		t.Fatal(err)
	}
	out, err = call(open, other, "terminal", terminal("echo RAN"))
	if err == nil || strings.Contains(out, "RAN\n") || !strings.Contains(out, "the sandbox helper is refused: the binary "+filepath.Join(open, "demiurge-sandbox")+" is writable by every user") {
		t.Fatalf("a helper every user can write was used (err %v):\n%s", err, out)
	}

	// Its first stage writable by every user: refused the same way.
	if err := os.Chmod(filepath.Join(open, "demiurge-sandbox"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(open, "demiurge-sandbox-first"), 0o777); err != nil {
		t.Fatal(err)
	}
	out, err = call(open, other, "terminal", terminal("echo RAN"))
	if err == nil || strings.Contains(out, "RAN\n") || !strings.Contains(out, "the sandbox helper's first stage is refused: the binary "+filepath.Join(open, "demiurge-sandbox-first")+" is writable by every user") {
		t.Fatalf("a first stage every user can write was accepted (err %v):\n%s", err, out)
	}
}
