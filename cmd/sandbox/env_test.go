package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"demiurge.dev/shared/sandbox"
)

// TestCommandGetsItsLaunchersEnvironment: the helper starts with
// GOMAXPROCS=1 (its own start is cheaper), and the command still gets
// exactly the environment its launcher gave it, TMPDIR aside: no
// GOMAXPROCS it did not have, its own GOMAXPROCS kept, and with no Env
// set the launcher's environment with PWD, as exec.Cmd gives it.
func TestCommandGetsItsLaunchersEnvironment(t *testing.T) {
	f := newFixture(t)
	p := f.policy(sandbox.WorkspaceWrite)
	commandEnv := func(given []string) []string {
		t.Helper()
		cmd := exec.Command("/usr/bin/env", "-0")
		cmd.Dir, cmd.Env = f.ws, given
		want := cmd.Environ()
		if err := sandbox.Wrap(cmd, helperBin, p); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, os.Stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %s", err, out.String())
		}
		got := strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00")
		// What the helper sets itself (sandbox.withTmpDir).
		want = slices.DeleteFunc(want, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
		want = append(want, "TMPDIR="+p.TmpDir)
		if !slices.Equal(got, want) {
			t.Errorf("the command's environment:\n got %q\nwant %q", got, want)
		}
		return got
	}
	// helperEnv is the first stage's environment, read while cat waits.
	helperEnv := func(given []string) []string {
		t.Helper()
		cmd := exec.Command("/bin/cat")
		cmd.Dir, cmd.Env = f.ws, given
		if err := sandbox.Wrap(cmd, helperBin, p); err != nil {
			t.Fatal(err)
		}
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Start returns once execve has begun; its new environment is in
		// place a moment later.
		var raw []byte
		for deadline := time.Now().Add(10 * time.Second); len(raw) == 0 && err == nil && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			raw, err = os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "environ"))
		}
		in.Close()
		if werr := cmd.Wait(); werr != nil || err != nil {
			t.Fatalf("read %v, wait %v", err, werr)
		}
		return strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	}

	plain := []string{"PATH=/usr/bin:/bin", "A=1", "TMPDIR=/elsewhere"}
	if got := commandEnv(plain); slices.ContainsFunc(got, func(kv string) bool { return strings.HasPrefix(kv, "GOMAXPROCS=") }) {
		t.Errorf("the command got a GOMAXPROCS its launcher did not give: %q", got)
	}
	if h := helperEnv(plain); !slices.Contains(h, "GOMAXPROCS=1") {
		t.Errorf("the helper started without GOMAXPROCS=1: %q", h)
	}
	own := []string{"PATH=/usr/bin:/bin", "GOMAXPROCS=3"}
	commandEnv(own)
	if h := helperEnv(own); slices.Contains(h, "GOMAXPROCS=1") {
		t.Errorf("a launcher's own GOMAXPROCS=3, and the helper also got GOMAXPROCS=1: %q", h)
	}
	commandEnv(nil) // the launcher's own environment, PWD set by exec.Cmd
}
