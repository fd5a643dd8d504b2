package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var taskID = regexp.MustCompile(`task_[0-9a-f]{20}`)

// TestTasksIsTheFrontEnds: with a host of the same options running,
// `tasks list`, `tasks show` and `tasks logs` (and --json) are answered by the small
// front end, byte for byte as the full CLI prints them, without running
// the full host binary; the operator's front end sees only the operator's
// tasks (another principal's task in the same host is neither listed nor
// shown); whatever it does not answer reaches the full host.
func TestTasksIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	// A plugin the host leaves out (and warns of on a call): the full
	// CLI's tasks says nothing of it, nor may the front end.
	junk := filepath.Join(r.state, "plugins", "demiurge-toolset-junk")
	if err := os.MkdirAll(filepath.Dir(junk), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(junk, []byte("#!/bin/sh\nexit 1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if res := r.host("host", "start"); res.code != 0 {
		t.Fatalf("host start: %s", res)
	}
	realHost := filepath.Join(t.TempDir(), HostBinary)
	copyFile(t, filepath.Join(r.bin, HostBinary), realHost)
	t.Cleanup(func() {
		cmd := exec.Command(realHost, "--state", r.state, "host", "stop")
		cmd.Env = []string{"HOME=" + r.home}
		cmd.Run()
	})
	// The operator's tasks: one that ends (with output on both streams,
	// waited for) and one still running.
	start := func(command string) string {
		res := r.host("--approve", "allow:terminal", "tools", "call", "terminal", `{"command":"`+command+`","background":true}`)
		id := taskID.FindString(res.stdout + res.stderr)
		if res.code != 0 || id == "" {
			t.Fatalf("background call: %s", res)
		}
		return id
	}
	ended := start(`echo $((6*7))-out; echo oops >&2`)
	running := start("sleep 120")
	if res := r.host("tasks", "wait", ended, "--timeout", "60s"); res.code != 0 {
		t.Fatalf("tasks wait: %s", res)
	}
	alices := r.aliceTask()

	cases := [][]string{
		{"tasks", "list"},
		{"tasks", "list", "--json"},
		{"tasks", "show", ended},
		{"tasks", "show", "--json", ended},
		{"tasks", "show", ended, "--json"},
		{"tasks", "show", running},
		{"tasks", "show", "last"},
		{"--workspace", "WS", "tasks", "list"},
		{"-q", "--no-color", "tasks", "show", "--json", running},
		{"tasks", "logs", ended},
		{"tasks", "logs", "--json", ended},
		{"tasks", "logs", "last", "--json"},
	}
	for _, args := range cases {
		if args[0] == "--workspace" {
			args[1] = r.ws
		}
	}
	var fronts []result
	for _, args := range cases {
		l, h := r.launcher(args...), r.host(args...)
		if l != h || l.code != 0 {
			t.Errorf("%q: the launcher and the host differ\nlauncher: %s\nhost: %s", args, l, h)
		}
		fronts = append(fronts, l)
	}
	if !strings.Contains(fronts[0].stdout, ended) || !strings.Contains(fronts[0].stdout, running) ||
		!strings.Contains(fronts[2].stdout, "42-out") || !strings.Contains(fronts[2].stdout, "oops") ||
		!strings.Contains(fronts[6].stdout, running) || fronts[9].stdout != "42-out\noops\n" {
		t.Fatalf("unexpected answers: %s\n%s\n%s\n%s", fronts[0], fronts[2], fronts[6], fronts[9])
	}
	for i, res := range fronts {
		if strings.Contains(res.stdout, alices) {
			t.Errorf("%q shows another principal's task %s: %s", cases[i], alices, res)
		}
	}
	if res := r.host("tasks", "show", alices); res.code == 0 || strings.Contains(res.stdout, alices) {
		t.Fatalf("the full CLI shows the operator another principal's task: %s", res)
	}

	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	for i, args := range cases {
		if res := r.launcher(args...); res != fronts[i] {
			t.Errorf("%q with the full host stubbed: %s\nwant %s", args, res, fronts[i])
		}
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("tasks ran the full host: %s", b)
	}
	other := t.TempDir()
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"tasks", "show", alices}}, // not the operator's: the host says no such task
		{nil, []string{"tasks", "show", "task_00000000000000000000"}},
		{nil, []string{"tasks", "logs", "--follow", ended}},
		{nil, []string{"tasks", "logs", ended, "-f"}},
		{nil, []string{"tasks", "logs", alices}},
		{nil, []string{"tasks", "wait", ended}},
		{nil, []string{"tasks", "cancel", running}},
		{nil, []string{"tasks"}},
		{nil, []string{"tasks", "list", "extra"}},
		{nil, []string{"tasks", "show", "--json", ended, "--json"}},
		{nil, []string{"tasks", "show", "-h"}},
		{nil, []string{"--workspace", other, "tasks", "list"}},
		{nil, []string{"--workspace", ".", "tasks", "list"}}, // the full CLI refuses it
		{[]string{"DEMIURGE_WORKSPACE=."}, []string{"tasks", "list"}},
		{nil, []string{"--approve", "allow:terminal", "tasks", "list"}},
		{[]string{"DEMIURGE_HOST=off"}, []string{"tasks", "list"}},
		{[]string{"DEMIURGE_TIMEZONE=UTC"}, []string{"tasks", "list"}},
	} {
		os.Remove(marker)
		res := r.exec("demiurge", "", tc.env, append([]string{"--state", r.state}, tc.args...)...)
		if b, err := os.ReadFile(marker); res.code != 3 || res.stdout != "" || err != nil || !strings.Contains(string(b), "demiurge") {
			t.Errorf("%v %q did not reach the full host: %s (marker %q, %v)", tc.env, tc.args, res, b, err)
		}
	}
	os.Remove(marker)
	res := r.exec("demiurge", "", nil, "--state", filepath.Join(t.TempDir(), "other"), "tasks", "list")
	if b, err := os.ReadFile(marker); res.code != 3 || err != nil {
		t.Errorf("tasks of a state with no host did not reach the full host: %s (marker %q, %v)", res, b, err)
	}
}

// aliceTask starts a background command in the rig's host under another
// principal (an MCP client of `mcp serve --principal alice`) and returns
// its id.
func (r *rig) aliceTask() string {
	r.t.Helper()
	cmd := exec.Command(filepath.Join(r.bin, HostBinary), "--state", r.state, "--approve", "allow:terminal", "mcp", "serve", "--principal", "alice")
	cmd.Dir, cmd.Env = r.ws, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.home}
	in, err := cmd.StdinPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	defer cmd.Wait()
	defer in.Close()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"terminal","arguments":{"command":"sleep 120","background":true}}}`,
	} {
		if _, err := in.Write([]byte(line + "\n")); err != nil {
			r.t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"id":2`) {
			if id := taskID.FindString(sc.Text()); id != "" {
				return id
			}
			r.t.Fatalf("alice's background call: %s", sc.Text())
		}
	}
	r.t.Fatalf("mcp serve ended without answering the call: %v", sc.Err())
	return ""
}
