package procstat

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// A command name with spaces and parentheses, as a process may name
// itself, does not move the fields after it.
func TestParentOfAChildNamedToConfuse(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/stat is Linux's")
	}
	dir := t.TempDir()
	odd := dir + "/a ) b ("
	if err := os.Symlink("/bin/sleep", odd); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(odd, "5")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if got, ok := ParentOf(cmd.Process.Pid); !ok || got != os.Getpid() {
		t.Fatalf("ParentOf(child) = %d, %v; want %d, true", got, ok, os.Getpid())
	}
	if _, ok := ParentOf(-1); ok {
		t.Fatal("ParentOf(-1) answered")
	}
}
