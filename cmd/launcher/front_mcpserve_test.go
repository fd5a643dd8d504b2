package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMCPServeIsTheFrontEnds: with a host of the same options running,
// `mcp serve` (stdio) is piped to the host by the small front end as by
// the full CLI: a client's initialize, tools/list and calls (one allowed
// by --approve, one denied: no one answers) get the same replies, for the
// operator and for `--principal alice`, also with the full host binary
// replaced by a stub that must not run; other flags reach the full host
// (--http: TestMCPServeHTTPIsTheFrontEnds).
func TestMCPServeIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	r.startHost()
	client := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"words.txt"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"terminal","arguments":{"command":"echo hi"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"terminal","arguments":{"command":"echo approved"}}}`,
		`{"jsonrpc":"2.0","id":6,"method":"no/such"}`,
	}, "\n") + "\n"
	cases := [][]string{
		{"mcp", "serve"},
		{"--approve", "allow:terminal", "mcp", "serve", "--max-request-kib", "64"},
		{"mcp", "serve", "--principal", "alice"},
	}
	var fronts []result
	for _, args := range cases {
		args = append([]string{"--state", r.state}, args...)
		l, h := sortedLines(r.mcpClient("demiurge", client, args...)), sortedLines(r.mcpClient(HostBinary, client, args...))
		if l != h || l.code != 0 {
			t.Errorf("%q: the launcher and the host differ\n%s", args, firstDiff(l.stdout+"--- stderr\n"+l.stderr, h.stdout+"--- stderr\n"+h.stderr))
		}
		fronts = append(fronts, l)
	}
	if !strings.Contains(fronts[0].stdout, `"id":2`) || !strings.Contains(fronts[0].stdout, "one two three") ||
		!strings.Contains(fronts[1].stdout, "approved") || strings.Count(fronts[0].stdout, "\n") < 6 {
		t.Fatalf("unexpected answers:\n%.2000s\n%.2000s", fronts[0].stdout[len(fronts[0].stdout)/2:], fronts[1].stdout[len(fronts[1].stdout)/2:])
	}

	// --principal reaches the host: alice's background task, started
	// through the front end, is not the operator's.
	bg := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"terminal","arguments":{"command":"sleep 60","background":true}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`,
	}, "\n") + "\n"
	res := r.mcpClient("demiurge", bg, "--state", r.state, "--approve", "allow:terminal", "mcp", "serve", "--principal", "alice")
	alices := taskID.FindString(res.stdout)
	if alices == "" {
		t.Fatalf("alice's background call: %.600s", res.stdout)
	}
	if list := r.host("tasks", "list"); list.code != 0 || strings.Contains(list.stdout, alices) {
		t.Fatalf("alice's task %s is the operator's: %s", alices, list)
	}

	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	for i, args := range cases {
		if res := sortedLines(r.mcpClient("demiurge", client, append([]string{"--state", r.state}, args...)...)); res != fronts[i] {
			t.Errorf("%q with the full host stubbed: %s", args, firstDiff(res.stdout+res.stderr, fronts[i].stdout+fronts[i].stderr))
		}
	}
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"mcp", "serve", "extra"}},
		{nil, []string{"mcp", "serve", "--max-request-kib", "010"}},
		{nil, []string{"--sandbox", "off", "mcp", "serve"}},
		{nil, []string{"--workspace", t.TempDir(), "mcp", "serve"}},
		{[]string{"DEMIURGE_HOST=off"}, []string{"mcp", "serve"}},
	} {
		r.reachesFullHost(marker, tc.env, append([]string{"--state", r.state}, tc.args...)...)
	}
	r.reachesFullHost(marker, nil, "--state", filepath.Join(t.TempDir(), "other"), "mcp", "serve")
}

// sortedLines orders the replies: the host answers a client's calls
// concurrently, so they may come in any order (each carries its id).
func sortedLines(res result) result {
	lines := strings.Split(strings.TrimSuffix(res.stdout, "\n"), "\n")
	slices.Sort(lines)
	res.stdout = strings.Join(lines, "\n") + "\n"
	return res
}

// firstDiff is the first line where a and b differ, cut short.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  %.400s\n  %.400s", i+1, x, y)
		}
	}
	return "(same)"
}

// mcpClient runs `mcp serve` through binary with args, writes the
// client's lines and closes its input once every request (ids 1 to 6)
// has its reply: a client that hangs up first cancels what is running.
func (r *rig) mcpClient(binary, client string, args ...string) result {
	r.t.Helper()
	cmd := r.command(binary, nil, args...)
	var stdout, stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	io.WriteString(in, client)
	for deadline := time.Now().Add(60 * time.Second); strings.Count(stdout.String(), "\n") < 6; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			break
		}
	}
	in.Close()
	return r.ended(cmd, cmd.Wait(), &stdout, &stderr)
}
