package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestFrontLinksNoHost keeps bin/demiurge-front small: it speaks the host
// socket (gRPC) but links nothing of the host itself, whose binary and
// package initialisation are what a host-only command should not pay.
func TestFrontLinksNoHost(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "demiurge.dev/cmd/front").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	// The light parts of heavy packages, split out for the front end:
	// the --model check, the approval prompt loop, a spawn task's metadata
	// (/subagents). (The wire form of a run's events is shared/turnevent.)
	light := map[string]bool{"demiurge.dev/host/providers/modelname": true,
		"demiurge.dev/host/approval/prompt": true, "demiurge.dev/host/agents/agentmeta": true,
		"demiurge.dev/host/hostd/hostclient": true}
	for _, dep := range deps {
		for _, heavy := range []string{"go-plugin", "jsonschema", "urfave/cli", "bleve", "mvdan.cc/sh",
			"anthropic-sdk-go", "openai-go", "google.golang.org/genai"} {
			if strings.Contains(dep, heavy) {
				t.Errorf("the front end depends on %s; keep it in the full host (bin/demiurge-host)", dep)
			}
		}
		for _, heavy := range []string{"demiurge.dev/host/providers", "demiurge.dev/host/dispatch", "demiurge.dev/host/toolhost",
			"demiurge.dev/host/plugins", "demiurge.dev/host/policy", "demiurge.dev/host/turn", "demiurge.dev/host/approval",
			"demiurge.dev/host/agents", "demiurge.dev/host/hostd", "demiurge.dev/host/toolhost", "demiurge.dev/host/mcp"} {
			if (dep == heavy || strings.HasPrefix(dep, heavy+"/")) && !light[dep] {
				t.Errorf("the front end depends on %s; keep it in the full host (bin/demiurge-host)", dep)
			}
		}
	}
	joined := " " + strings.Join(deps, " ") + " "
	for _, need := range []string{"demiurge.dev/host/hostd/hostclient", "demiurge.dev/cmd/internal/frontview", "google.golang.org/grpc",
		"demiurge.dev/shared/turnevent", "demiurge.dev/host/providers/modelname",
		// the interactive session (issue 34): the full CLI's through-host session
		"demiurge.dev/cmd/internal/termsession", "demiurge.dev/cmd/internal/taskcmd", "github.com/chzyer/readline"} {
		if !strings.Contains(joined, " "+need+" ") {
			t.Errorf("go list -deps does not list %s; is the check looking at the right package?", need)
		}
	}
}

// uptime is the one part of host status that moves between two asks.
var uptime = regexp.MustCompile(`(?m)^uptime +\S+$|"uptime_s": \d+`)

// TestHostStatusIsTheFrontEnds: with a host running, `host status` (and
// --json) is answered by the small front end, byte for byte as the full
// CLI prints it, without running the full host binary; with no host, with
// DEMIURGE_HOST=off and for what it does not know, the full host answers.
func TestHostStatusIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	// No host runs: the full host's answer (exit 3, its message).
	if res := r.sameAsHost("host", "status"); res.code != 3 || !strings.Contains(res.stderr, "no host runs") {
		t.Fatalf("host status with no host: %s", res)
	}
	r.startHost()
	r.same([][]string{{"host", "status"}, {"host", "status", "--json"}}, func(res result) result {
		res.stdout = uptime.ReplaceAllString(res.stdout, "UPTIME")
		return res
	}, true)
	// The full host binary is replaced (by rename: the running host keeps
	// its image) with a stub that records its runs.
	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	for _, args := range [][]string{{"host", "status"}, {"host", "status", "--json"}} {
		res := r.launcher(args...)
		if res.code != 0 || !strings.Contains(res.stdout, r.state) {
			t.Errorf("%q with the full host stubbed: %s", args, res)
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("host status ran the full host: %s", b)
	}
	// What the front end does not answer reaches the full host.
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{[]string{"DEMIURGE_HOST=off"}, []string{"host", "status"}},
		{[]string{"DEMIURGE_OUTPUT_CAP_MIB=lots"}, []string{"host", "status"}},
		{nil, []string{"host", "stop"}},
		{nil, []string{"host", "status", "--jsn"}},
		{nil, []string{"--log-level=debug", "host", "status"}},
	} {
		r.reachesFullHost(marker, tc.env, append([]string{"--state", r.state}, tc.args...)...)
	}
	// A state with no host: the front end hands over to the full host.
	r.reachesFullHost(marker, nil, "--state", filepath.Join(t.TempDir(), "other"), "host", "status")
}

// renameStub puts a script that records its runs in path's place by
// rename, so a process running the old file is untouched.
func renameStub(t *testing.T, path, marker string) {
	t.Helper()
	tmp := path + ".stub"
	if err := os.WriteFile(tmp, []byte("#!/bin/sh\necho \"$0\" >> '"+marker+"'\nexit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}
