package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
