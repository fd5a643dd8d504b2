package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// The front-end tests share one shape: a running host, each command
// through the launcher and the full CLI alike, then again with the full
// host binary stubbed, and what the front end does not answer handed on.

// leaveOutJunk installs a plugin the host leaves out (and warns of on a
// call).
func (r *rig) leaveOutJunk() {
	r.t.Helper()
	junk := filepath.Join(r.state, "plugins", "demiurge-toolset-junk")
	if err := os.MkdirAll(filepath.Dir(junk), 0o700); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(junk, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		r.t.Fatal(err)
	}
}

// startHost starts the rig's host and stops it when the test ends, with
// a copy of the real host binary: the test may stub the rig's own.
func (r *rig) startHost() {
	r.t.Helper()
	if res := r.host("host", "start"); res.code != 0 {
		r.t.Fatalf("host start: %s", res)
	}
	realHost := filepath.Join(r.t.TempDir(), HostBinary)
	copyFile(r.t, filepath.Join(r.bin, HostBinary), realHost)
	r.t.Cleanup(func() {
		cmd := exec.Command(realHost, "--state", r.state, "host", "stop")
		cmd.Env = []string{"HOME=" + r.home}
		cmd.Run()
	})
}

// same runs each case through the launcher and the full host, requires
// the same answer (after norm, if any; exit 0 too when mustSucceed) and
// returns the launcher's answers.
func (r *rig) same(cases [][]string, norm func(result) result, mustSucceed bool) []result {
	r.t.Helper()
	if norm == nil {
		norm = func(res result) result { return res }
	}
	var fronts []result
	for _, args := range cases {
		l, h := norm(r.launcher(args...)), norm(r.host(args...))
		if l != h || (mustSucceed && l.code != 0) {
			r.t.Errorf("%q: the launcher and the host differ\nlauncher: %s\nhost: %s", args, l, h)
		}
		fronts = append(fronts, l)
	}
	return fronts
}

// sameStubbed runs each case through the launcher again, the full host
// stubbed, and requires the answers want (after norm, if any).
func (r *rig) sameStubbed(cases [][]string, want []result, norm func(result) result) {
	r.t.Helper()
	for i, args := range cases {
		res := r.launcher(args...)
		if norm != nil {
			res = norm(res)
		}
		if res != want[i] {
			r.t.Errorf("%q with the full host stubbed: %s\nwant %s", args, res, want[i])
		}
	}
}

// reachesFullHost runs the launcher with env and args (--state included)
// and requires that the stub renameStub put in the full host's place ran
// and that nothing else answered.
func (r *rig) reachesFullHost(marker string, env []string, args ...string) {
	r.t.Helper()
	os.Remove(marker)
	res := r.exec("demiurge", "", env, args...)
	if b, err := os.ReadFile(marker); res.code != 3 || res.stdout != "" || err != nil || !strings.Contains(string(b), "demiurge") {
		r.t.Errorf("%v %q did not reach the full host: %s (marker %q, %v)", env, args, res, b, err)
	}
}

// startHostPID starts the rig's host and returns its pid, for a test
// that kills it.
func (r *rig) startHostPID() int {
	r.t.Helper()
	if res := r.host("host", "start"); res.code != 0 {
		r.t.Fatalf("host start: %s", res)
	}
	var st struct{ Pid int }
	if res := r.host("host", "status", "--json"); json.Unmarshal([]byte(res.stdout), &st) != nil || st.Pid == 0 {
		r.t.Fatalf("host status: %s", res)
	}
	return st.Pid
}

// slowModel is a model server whose two answers each take 30 s: a turn
// that is still thinking when the test stops it or kills its host.
func slowModel(t *testing.T) *providertest.Server {
	t.Helper()
	slow := `{"text": ["late"], "delay_ms": 30000}`
	parsed, err := providertest.ParseScript([]byte("[" + slow + "," + slow + "]"))
	if err != nil {
		t.Fatal(err)
	}
	model := providertest.NewServer("openai", parsed)
	t.Cleanup(model.Close)
	return model
}

// hostDiesMidTurn runs args (stdin on standard input) through the
// launcher, then the full CLI, each against a host started for it and
// killed once model has been asked; it returns what each said (blanked).
func (r *rig) hostDiesMidTurn(model *providertest.Server, stdin string, args ...string) []result {
	r.t.Helper()
	env := []string{"OPENAI_API_KEY=sk-test-openai-0123456789"}
	var got []result
	for i, binary := range []string{"demiurge", HostBinary} {
		pid := r.startHostPID()
		done := make(chan result, 1)
		go func() { done <- r.exec(binary, stdin, env, args...) }()
		for deadline := time.Now().Add(60 * time.Second); len(model.Requests()) <= i; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				r.t.Fatalf("%s: the model was never asked", binary)
			}
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			r.t.Fatal(err)
		}
		select {
		case res := <-done:
			got = append(got, blank(blankRun(res)))
		case <-time.After(60 * time.Second):
			r.t.Fatalf("%s %q did not end after its host died", binary, args)
		}
	}
	return got
}
