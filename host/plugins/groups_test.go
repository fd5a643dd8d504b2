package plugins

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/shared/toolsetv1"
)

// liveMembers lists the processes of group pgid that are not zombies.
func liveMembers(pgid int) []int {
	ents, _ := os.ReadDir(procRoot)
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(procRoot, e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

// childWithEnv finds a child of parent whose environment holds kv.
func childWithEnv(parent int, kv string) int {
	ents, _ := os.ReadDir(procRoot)
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(pid); err != nil || st.ppid != parent {
			continue
		}
		env, _ := os.ReadFile(filepath.Join(procRoot, e.Name(), "environ"))
		for _, v := range strings.Split(string(env), "\x00") {
			if v == kv {
				return pid
			}
		}
	}
	return 0
}

func waitFor(t *testing.T, what string, d time.Duration, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(d); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHostEndsGroupsWhenPluginAndReaperDie kills the coding plugin's reaper
// and then the plugin itself (-9 both) while a command with a background
// child runs: the host must end that command's group.
func TestHostEndsGroupsWhenPluginAndReaperDie(t *testing.T) {
	m := newManager(t, pluginDir(t, "coding"), "")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pgids := make(chan int, 1)
	done := make(chan error, 1)
	pgidRe := regexp.MustCompile(`pgid=(\d+)`)
	go func() {
		_, err := m.Invoke(ctx, "coding", &toolsetv1.EffectRequest{
			InvocationId: "inv_orphan", Tool: "terminal",
			Arguments: []byte(`{"command":"sleep 300 & echo pgid=$$; wait","timeout":600}`),
			Workspace: t.TempDir(), ArtifactRoot: t.TempDir(), Env: []string{"PATH=/usr/bin:/bin"},
		}, Hooks{}, func(ev *toolsetv1.InvokeEvent) error {
			if mm := pgidRe.FindSubmatch(ev.GetOutput().GetData()); mm != nil {
				n, _ := strconv.Atoi(string(mm[1]))
				select {
				case pgids <- n:
				default:
				}
			}
			return nil
		})
		done <- err
	}()
	var pgid int
	select {
	case pgid = <-pgids:
	case err := <-done:
		t.Fatalf("the call ended before its command said its group: %v", err)
	case <-ctx.Done():
		t.Fatal("no pgid from the command in time")
	}
	t.Cleanup(func() { _ = syscall.Kill(-pgid, syscall.SIGKILL) })
	waitFor(t, "the command's sleep to run", 10*time.Second, func() bool { return len(liveMembers(pgid)) >= 2 })

	plugin := m.Statuses()[0].PID
	reaper := childWithEnv(plugin, "DEMIURGE_TERMINAL_REAPER=1")
	if plugin <= 1 || reaper <= 1 {
		t.Fatalf("plugin pid %d, reaper pid %d", plugin, reaper)
	}
	if err := syscall.Kill(reaper, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the reaper to be gone", 10*time.Second, func() bool { st, err := readStat(reaper); return err != nil || st.ppid != plugin })
	if err := syscall.Kill(plugin, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "exited during the call") {
			t.Fatalf("call error = %v", err)
		}
	case <-ctx.Done():
		t.Fatal("the call did not end after the plugin died")
	}
	waitFor(t, "the host to end the command's group", 10*time.Second, func() bool { return len(liveMembers(pgid)) == 0 })
}

// TestEndGroupSparesReusedIDs: a recorded group whose id now belongs to
// another process (another start time) is never signalled; one whose
// leader still matches is ended.
func TestEndGroupSparesReusedIDs(t *testing.T) {
	for _, tc := range []struct {
		name     string
		marker   func(real string) string
		wantDead bool
	}{
		{"reused id", func(string) string { return "1" }, false},
		{"reused id, later start", func(real string) string { n, _ := strconv.Atoi(real); return strconv.Itoa(n - 1) }, false},
		{"same process", func(real string) string { return real }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stranger := exec.Command("sleep", "30")
			stranger.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := stranger.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { _ = stranger.Wait(); close(exited) }()
			t.Cleanup(func() { _ = stranger.Process.Kill(); <-exited })
			pid := stranger.Process.Pid
			st, err := readStat(pid)
			if err != nil {
				t.Fatal(err)
			}
			var g spawnedGroups
			g.byCall = map[string]map[int]string{"inv": {pid: tc.marker(st.start)}}
			g.endAll()
			select {
			case <-exited:
				if !tc.wantDead {
					t.Fatal("a process that reused a recorded group id was killed")
				}
			case <-time.After(500 * time.Millisecond):
				if tc.wantDead {
					t.Fatal("the recorded group was not ended")
				}
			}
		})
	}
}

// TestSpawnedGroupsRefuseForeignGroups: a plugin can only have the host
// record groups led by its own children.
func TestSpawnedGroupsRefuseForeignGroups(t *testing.T) {
	child := exec.Command("sleep", "30")
	child.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	pid := child.Process.Pid
	st, err := readStat(pid)
	if err != nil {
		t.Fatal(err)
	}
	var g spawnedGroups
	for _, tc := range []struct {
		name          string
		parent, pgid  int
		marker        string
		wantRecording bool
	}{
		{"not the plugin's child", os.Getpid() + 1, pid, st.start, false},
		{"wrong marker", os.Getpid(), pid, "1", false},
		{"the host's own group", os.Getppid(), syscall.Getpgrp(), "x", false},
		{"init", 0, 1, "1", false},
		{"its own child", os.Getpid(), pid, st.start, true},
	} {
		if got := g.add("inv", tc.parent, tc.pgid, tc.marker); got != tc.wantRecording {
			t.Errorf("%s: recorded = %v, want %v", tc.name, got, tc.wantRecording)
		}
	}
}

// TestSpawnedGroupsForgetEndedOnes: a group that has no process left is
// dropped when the next one is recorded, so calls the host stopped
// waiting for do not pile up.
func TestSpawnedGroupsForgetEndedOnes(t *testing.T) {
	gone := exec.Command("true")
	gone.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	live := exec.Command("sleep", "30")
	live.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = live.Process.Kill(); _ = live.Wait() }()
	st, err := readStat(live.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	var g spawnedGroups
	g.byCall = map[string]map[int]string{"cancelled": {gone.Process.Pid: "1"}}
	if !g.add("inv", os.Getpid(), live.Process.Pid, st.start) {
		t.Fatal("own child group not recorded")
	}
	if _, ok := g.byCall["cancelled"]; ok || len(g.byCall["inv"]) != 1 {
		t.Fatalf("recorded %v", g.byCall)
	}
}
