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
	r.leaveOutJunk()
	r.startHost()
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
	// Its two streams are read apart, so its log holds them in either
	// order; what is compared is that both front ends print the same.
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
	fronts := r.same(cases, nil, true)
	if !strings.Contains(fronts[0].stdout, ended) || !strings.Contains(fronts[0].stdout, running) ||
		!strings.Contains(fronts[2].stdout, "42-out") || !strings.Contains(fronts[2].stdout, "oops") ||
		!strings.Contains(fronts[6].stdout, running) || (fronts[9].stdout != "42-out\noops\n" && fronts[9].stdout != "oops\n42-out\n") {
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
	r.sameStubbed(cases, fronts, nil)
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
		{nil, []string{"tasks", "logs", alices}},
		{nil, []string{"tasks", "logs", "--follow", "--json", "-f", ended}},
		{nil, []string{"tasks", "wait", ended, "extra"}},
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
		r.reachesFullHost(marker, tc.env, append([]string{"--state", r.state}, tc.args...)...)
	}
	// A state with no host.
	r.reachesFullHost(marker, nil, "--state", filepath.Join(t.TempDir(), "other"), "tasks", "list")
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
