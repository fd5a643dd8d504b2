package terminal

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReapKillsRegisteredGroupsOnly(t *testing.T) {
	rd, wr, _ := os.Pipe()
	defer rd.Close()
	p, err := start("/bin/bash", treeCommand, t.TempDir(), testEnv(), wr, wr, "sp_reap")
	_ = wr.Close()
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := os.StartProcess("/bin/sleep", []string{"sleep", "30"}, &os.ProcAttr{Sys: &syscall.SysProcAttr{Setpgid: true}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = stranger.Kill(); _, _ = stranger.Wait() }()
	waitFor(t, func() bool { return len(pidsInGroup(t, p.PGID)) >= 4 })
	// Our group, a group announced and then removed, and the stranger's
	// group under a marker that is not its leader's: only ours dies.
	script := "+" + strconv.Itoa(p.PGID) + " " + p.StartMarker + "\n" +
		"+" + strconv.Itoa(stranger.Pid) + " 1\n" +
		"+999999 5\n-999999\n" +
		"garbage line\n+x y\n"
	reap(strings.NewReader(script))
	waitFor(t, func() bool { return groupGone(t, p.PGID) })
	<-p.exited
	if err := stranger.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the stranger was killed: %v", err)
	}
}

// runPluginChild is the child side of TestTreesDieWithAKilledPlugin: a
// Runner with this binary as its reaper runs a tree, and the process
// waits to be killed.
func runPluginChild() {
	rn := NewRunner()
	rn.ReaperExe, _ = os.Executable()
	go func() {
		_, _ = rn.Run(context.Background(), Request{Command: "echo pgid=$$; " + treeCommand, Dir: os.TempDir(),
			Env: testEnv(), Timeout: time.Minute, ArtifactRoot: os.Getenv(pluginChildEnv), Emit: stdoutEmitter{}})
	}()
	select {}
}

type stdoutEmitter struct{}

func (stdoutEmitter) Output(_ string, data []byte) error           { _, err := os.Stdout.Write(data); return err }
func (stdoutEmitter) Artifact(string, string, int64, string) error { return nil }

// A plugin killed outright (as the host's Pdeathsig does when the host
// dies) has no chance to end its trees: the reaper does, within a second.
func TestTreesDieWithAKilledPlugin(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), pluginChildEnv+"="+t.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	pgid := 0
	for pgid == 0 && sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "pgid="); ok {
			pgid, _ = strconv.Atoi(v)
		}
	}
	if pgid == 0 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal("the child plugin never reported its tree")
	}
	waitFor(t, func() bool { return len(pidsInGroup(t, pgid)) >= 4 })
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	killed := time.Now()
	for !groupGone(t, pgid) {
		if time.Since(killed) > time.Second {
			left := pidsInGroup(t, pgid)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("a second after the plugin was killed, its tree %d still has %v", pgid, left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
