package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// demiurgeBinary is the real binary: from `make build` when the tests run
// under make, else built here.
func demiurgeBinary(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR"); dir != "" {
		if bin := filepath.Join(dir, "demiurge"); fileExists(bin) {
			return bin
		}
	}
	bin := filepath.Join(t.TempDir(), "demiurge")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build demiurge: %v\n%s", err, out)
	}
	return bin
}

// childPIDs lists a process's children from /proc.
func childPIDs(t *testing.T, pid int) []int {
	t.Helper()
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	var out []int
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(field); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// alive is false for a process that is gone or a zombie.
func alive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// TestPluginsDieWithAKilledHost kills the host with SIGKILL, which gives it
// no chance to stop its plugins: Pdeathsig (and the SDK's parent watchdog)
// must take them down anyway.
func TestPluginsDieWithAKilledHost(t *testing.T) {
	builtin, _ := testPlugins(t)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha\n"), 0o644)
	cmd := exec.Command(demiurgeBinary(t), "--state", t.TempDir(), "--plugin-dir", builtin, "--workspace", ws)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	stdin.Write([]byte(`/call read_file {"path":"a.txt"}` + "\n"))
	for lines.Scan() {
		if strings.Contains(lines.Text(), "alpha") {
			break
		}
	}
	var plugin int
	for _, pid := range childPIDs(t, cmd.Process.Pid) {
		// The plugin runs from the sealed memfd its bytes were verified in
		// ("/memfd:demiurge-toolset-coding (deleted)").
		if exe, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe")); strings.Contains(exe, "demiurge-toolset-coding") {
			plugin = pid
		}
	}
	if plugin == 0 {
		t.Fatal("no coding plugin process found under the host")
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(plugin) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(plugin) {
		syscall.Kill(plugin, syscall.SIGKILL)
		t.Fatalf("plugin %d outlived its killed host", plugin)
	}
}
