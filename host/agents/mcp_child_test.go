package agents_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/toolhost"
)

// mcpCoreYAML declares one MCP server, docs (the echo test server), and
// grants connecting and calling it.
const mcpCoreYAML = "toolsets: [coding, demiurge_control]\nslots: {mcp: agent/mcp}\n" +
	"capabilities: [fs.read, tool.call:delegate_task, \"mcp.connect:*\", \"mcp.call:*\"]\n"

// A child that connected an MCP server and is cancelled mid-run ends that
// server's process with it; its parent's own connection is another
// process and stays.
func TestCancelledChildEndsItsMCPServer(t *testing.T) {
	bins := mcptest.Servers(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(mcpCoreYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	mcptest.Manifest(t, filepath.Join(dir, "agent", "mcp"), "docs", "command: "+filepath.Join(bins, "echo")+"\n")
	echo := filepath.Join(bins, "echo")
	before := ourProcesses(echo)
	// The operator approves connecting docs; the parent connects it.
	f := newFixtureOptions(t, agents.Limits{}, []pt.Step{
		child("use docs", pt.Step{ToolCalls: []pt.ToolCall{{ID: "d1", Name: "docs__pids", Args: `{}`}}}),
		// The child's next model request hangs until it is cancelled.
		child("use docs", pt.Step{DelayMS: 60_000, Text: []string{"too late"}}),
	}, toolhost.Options{CoreDir: dir, StateDir: t.TempDir(), Rules: []string{"allow:mcp_connect__docs", "allow:docs__pids"}})
	if _, err := f.h.Session().Catalog(context.Background()); err != nil {
		t.Fatal(err)
	}
	parentServers := newer(ourProcesses(echo), before)
	if len(parentServers) != 1 {
		t.Fatalf("the parent's docs server: %v", parentServers)
	}
	before[parentServers[0]] = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan string, 1)
	go func() {
		out, _ := f.gate.Delegate(ctx, f.h.Session(), dispatch.DelegateCall{Turn: "turn_m", CallID: "c", Asker: &recordingAsker{answer: approval.AllowOnce},
			Args: json.RawMessage(`{"goal":"use docs","notify_policy":"wait"}`)})
		done <- out
	}()
	var servers []int
	for deadline := time.Now().Add(30 * time.Second); len(f.srv.Requests()) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the child never called docs__pids and asked the model again")
		}
	}
	servers = newer(ourProcesses(echo), before)
	if len(servers) == 0 {
		t.Fatal("no docs server runs for the child")
	}
	if body := string(f.srv.Requests()[1].Body); !strings.Contains(body, strconv.Itoa(servers[0])) {
		t.Fatalf("the child's docs__pids did not report the server %v: %s", servers, body)
	}
	cancel()
	select {
	case out := <-done:
		if !strings.Contains(out, `"status":"cancelled"`) {
			t.Fatalf("out %s", out)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled child did not end")
	}
	for end := time.Now().Add(5 * time.Second); len(newer(ourProcesses(echo), before)) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the docs server %v outlived its cancelled child", newer(ourProcesses(echo), before))
		}
	}
	if !ourProcesses(echo)[parentServers[0]] {
		t.Fatal("cancelling the child ended the parent's docs server")
	}
}

// A child of another core that declares MCP servers: the child runs, it
// is given none of that core's MCP tools (its parent's catalog has none,
// and a child only narrows), the root's front end is not asked to connect
// anything for it, and no server process of that core is left once it
// ends, although the operator's rules would approve the connect.
func TestChildOfACoreWithMCPServers(t *testing.T) {
	bins := mcptest.Servers(t)
	echo := filepath.Join(bins, "echo")
	state := t.TempDir()
	r, err := corerepo.OpenOrInit(state)
	if err != nil {
		t.Fatal(err)
	}
	live, _ := r.Live()
	work := filepath.Join(t.TempDir(), "w")
	if err := r.Checkout(live, work); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(work, "agents", "docs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(mcpCoreYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	mcptest.Manifest(t, filepath.Join(dir, "agent", "mcp"), "docs", "command: "+echo+"\n")
	if _, _, err := r.Commit(work, "a core with an MCP server", func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	before := ourProcesses(echo)
	// The operator's rules would approve connecting docs: still, the
	// parent has no docs tool, so the child gets none.
	f := newFixtureOptions(t, agents.Limits{}, []pt.Step{
		child("read with docs", pt.Step{ToolCalls: []pt.ToolCall{{ID: "d1", Name: "docs__pids", Args: `{}`}}}),
		child("read with docs", pt.Step{Text: []string{"no docs here"}}),
	}, toolhost.Options{StateDir: state, Rules: []string{"allow:mcp_connect__docs", "allow:docs__pids"}})
	asker := &recordingAsker{answer: approval.AllowOnce}
	out, err := f.gate.Delegate(context.Background(), f.h.Session(), dispatch.DelegateCall{Turn: "turn_d", CallID: "c", Asker: asker,
		Args: json.RawMessage(`{"goal":"read with docs","core_id":"docs","notify_policy":"wait"}`)})
	if err != nil || !strings.Contains(out, `"status":"completed"`) || !strings.Contains(out, "no docs here") {
		t.Fatalf("the child of core docs: %v %s", err, out)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 || strings.Contains(string(reqs[0].Body), `"name":"docs__pids"`) {
		t.Fatalf("the child was offered the docs server's tool its parent lacks (%d requests)", len(reqs))
	}
	if !strings.Contains(string(reqs[1].Body), "docs__pids") {
		t.Fatalf("the child's call of docs__pids got no answer: %s", reqs[1].Body)
	}
	for _, q := range asker.asked {
		if strings.HasPrefix(q.Tool, "mcp_connect__") {
			t.Fatalf("the root's front end was asked to connect %s for the child", q.Tool)
		}
	}
	if left := newer(ourProcesses(echo), before); len(left) > 0 {
		t.Fatalf("docs servers %v run after the child ended", left)
	}
}

// ourProcesses are the pids of live processes descending from this test
// whose argv[0] is program.
func ourProcesses(program string) map[int]bool {
	out := map[int]bool{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.HasPrefix(string(cmd), program+"\x00") || zombie(pid) {
			continue
		}
		if descends(pid, os.Getpid()) {
			out[pid] = true
		}
	}
	return out
}

func newer(now, before map[int]bool) []int {
	var out []int
	for p := range now {
		if !before[p] {
			out = append(out, p)
		}
	}
	return out
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	return err != nil || strings.Contains(string(b), ") Z ")
}

// descends reports whether pid's parent chain reaches ancestor.
func descends(pid, ancestor int) bool {
	for range 16 {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 {
			return false
		}
		ppid, _ := strconv.Atoi(fields[1])
		if ppid == ancestor {
			return true
		}
		if ppid <= 1 {
			return false
		}
		pid = ppid
	}
	return false
}
