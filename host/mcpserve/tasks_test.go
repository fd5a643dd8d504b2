package mcpserve

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/plugins/plugintest"
)

var taskReqs atomic.Int64

// sendTask makes one task-augmented tools/call (the mcp-go client has no
// method for one) and returns the JSON-RPC response.
func sendTask(t *testing.T, c *client.Client, name string, args map[string]any, ttl *int64) *transport.JSONRPCResponse {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	params := mcp.CallToolParams{Name: name, Arguments: args, Task: &mcp.TaskParams{TTL: ttl}}
	resp, err := c.GetTransport().SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: mcp.JSONRPC_VERSION,
		ID: mcp.NewRequestId(taskReqs.Add(1)), Method: string(mcp.MethodToolsCall), Params: params})
	if err != nil {
		t.Fatalf("task-augmented %s: %v", name, err)
	}
	return resp
}

// startTask is a task-augmented call's created task.
func startTask(t *testing.T, c *client.Client, name string, args map[string]any, ttl *int64) mcp.Task {
	t.Helper()
	resp := sendTask(t, c, name, args, ttl)
	var created struct {
		Task    mcp.Task        `json:"task"`
		Content json.RawMessage `json:"content"`
	}
	if resp.Error != nil || json.Unmarshal(resp.Result, &created) != nil || created.Task.TaskId == "" || created.Content != nil {
		t.Fatalf("not a CreateTaskResult: %s %+v", resp.Result, resp.Error)
	}
	return created.Task
}

func taskResult(t *testing.T, c *client.Client, id string) *mcp.TaskResultResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: id}})
	if err != nil {
		t.Fatalf("tasks/result %s: %v", id, err)
	}
	return res
}

func getTask(c *client.Client, id string) (*mcp.GetTaskResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.GetTask(ctx, mcp.GetTaskRequest{Params: mcp.GetTaskParams{TaskId: id}})
}

func cancelTask(c *client.Client, id string) (*mcp.CancelTaskResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return c.CancelTask(ctx, mcp.CancelTaskRequest{Params: mcp.CancelTaskParams{TaskId: id}})
}

func listTasks(t *testing.T, c *client.Client) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.ListTasks(ctx, mcp.ListTasksRequest{})
	if err != nil {
		t.Fatalf("tasks/list: %v", err)
	}
	var ids []string
	for _, task := range res.Tasks {
		ids = append(ids, task.TaskId)
	}
	return ids
}

func contentText(cs []mcp.Content) string {
	return text(&mcp.CallToolResult{Content: cs})
}

// noRunsLeft: the server forgets every finished run.
func noRunsLeft(t *testing.T, s *served) {
	t.Helper()
	plugintest.WaitFor(t, 10*time.Second, "the task runs to be forgotten", func() bool { return s.Srv.tasks.count() == 0 })
}

// TestTaskReadFileIsThePlainCall: the server declares tasks and every tool
// takes them; a task-augmented read_file is a created task whose
// tasks/result is what the plain call answers, within the bounded ttl,
// and the call is audited like any other.
func TestTaskReadFileIsThePlainCall(t *testing.T) {
	s := serve(t, serveOpts{})
	if err := os.WriteFile(filepath.Join(s.Workspace, "notes.txt"), []byte("task line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, mcp.ProtocolVersion20251125, nil)
	caps := c.GetServerCapabilities()
	if caps.Tasks == nil || caps.Tasks.List == nil || caps.Tasks.Cancel == nil || caps.Tasks.Requests == nil ||
		caps.Tasks.Requests.Tools == nil || caps.Tasks.Requests.Tools.Call == nil {
		t.Fatalf("tasks capability: %s", toJSON(caps.Tasks))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tools, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		if tool.Execution == nil || tool.Execution.TaskSupport != mcp.TaskSupportOptional {
			t.Fatalf("%s: execution %+v", tool.Name, tool.Execution)
		}
	}
	plain := call(t, c, "read_file", map[string]any{"path": "notes.txt"})
	if plain.IsError || !strings.Contains(text(plain), "task line") {
		t.Fatalf("plain call: %q", text(plain))
	}
	ask := int64(10 * time.Hour / time.Millisecond)
	task := startTask(t, c, "read_file", map[string]any{"path": "notes.txt"}, &ask)
	if task.TTL == nil || *task.TTL != MaxTaskTTL.Milliseconds() {
		t.Fatalf("ttl %v, want it lowered to %d", task.TTL, MaxTaskTTL.Milliseconds())
	}
	res := taskResult(t, c, task.TaskId)
	if res.IsError || contentText(res.Content) != text(plain) || toJSON(res.StructuredContent) != toJSON(plain.StructuredContent) {
		t.Fatalf("tasks/result %q, the plain call %q", contentText(res.Content), text(plain))
	}
	got, err := getTask(c, task.TaskId)
	if err != nil || got.Status != mcp.TaskStatusCompleted {
		t.Fatalf("tasks/get: %+v %v", got, err)
	}
	if calls := servedCalls(t, s, "read_file"); len(calls) != 2 {
		t.Fatalf("audited served read_file calls %v, want the plain one and the task's", calls)
	}
	noRunsLeft(t, s)
}

// TestTaskCancelEndsTheProcess: tasks/cancel of a running terminal task
// cancels the detached run, and the command's process tree ends.
func TestTaskCancelEndsTheProcess(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}})
	c := connect(t, s, mcp.ProtocolVersion20251125, nil)
	marker := "317.5151"
	task := startTask(t, c, "terminal", map[string]any{"command": "sleep " + marker}, nil)
	plugintest.WaitFor(t, 30*time.Second, "the task's command to start", func() bool { return len(plugintest.ProcessesWith(marker)) > 0 })
	// Past the create-task answer: the run outlived its request.
	time.Sleep(300 * time.Millisecond)
	if len(plugintest.ProcessesWith(marker)) == 0 {
		t.Fatal("the task's command ended with its tools/call request")
	}
	res, err := cancelTask(c, task.TaskId)
	if err != nil || res.Status != mcp.TaskStatusCancelled {
		t.Fatalf("tasks/cancel: %+v %v", res, err)
	}
	plugintest.WaitFor(t, 15*time.Second, "the cancelled task's process to end", func() bool { return len(plugintest.ProcessesWith(marker)) == 0 })
	noRunsLeft(t, s)
}

// TestTaskTTLEndsTheRun: a task's run ends when its ttl has passed.
func TestTaskTTLEndsTheRun(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}})
	c := connect(t, s, mcp.ProtocolVersion20251125, nil)
	marker := "318.6161"
	ttl := int64(3000)
	startTask(t, c, "terminal", map[string]any{"command": "sleep " + marker}, &ttl)
	plugintest.WaitFor(t, 30*time.Second, "the task's command to start", func() bool { return len(plugintest.ProcessesWith(marker)) > 0 })
	plugintest.WaitFor(t, 20*time.Second, "the expired task's process to end", func() bool { return len(plugintest.ProcessesWith(marker)) == 0 })
	noRunsLeft(t, s)
}

// TestTaskNeedingApprovalIsDenied: a task does not ask, so a call that
// needs an approval is denied at once, with how to get one, even from a
// client that answers elicitations and listens for them; the write does
// not happen.
func TestTaskNeedingApprovalIsDenied(t *testing.T) {
	s := serve(t, serveOpts{})
	ans := &answerer{decision: decisionOnce}
	c := connect(t, s, mcp.ProtocolVersion20251125, ans, transport.WithContinuousListening())
	start := time.Now()
	task := startTask(t, c, "write_file", map[string]any{"path": "asked.txt", "content": "x\n"}, nil)
	res := taskResult(t, c, task.TaskId)
	msg := contentText(res.Content)
	if !res.IsError || !strings.Contains(msg, "no one can answer here") || !strings.Contains(msg, "without task augmentation") ||
		!strings.Contains(msg, "--approve allow:write_file") {
		t.Fatalf("tasks/result: %v %q", res.IsError, msg)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("the denial took %s: something waited for an answer", time.Since(start))
	}
	if ans.asked.Load() != 0 {
		t.Fatalf("the client was asked %d times from a task", ans.asked.Load())
	}
	if _, err := os.Stat(filepath.Join(s.Workspace, "asked.txt")); err == nil {
		t.Fatal("the denied write happened")
	}
	// The same call without task augmentation is asked, and runs.
	if plain := call(t, c, "write_file", map[string]any{"path": "asked.txt", "content": "x\n"}); plain.IsError || ans.asked.Load() != 1 {
		t.Fatalf("plain call: %q, asked %d", text(plain), ans.asked.Load())
	}
}

// TestTasksStayWithTheirSession: another client's session neither lists,
// gets, reads nor cancels a task; its own does.
func TestTasksStayWithTheirSession(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}})
	a := connect(t, s, mcp.ProtocolVersion20251125, nil)
	b := connect(t, s, mcp.ProtocolVersion20251125, nil)
	marker := "319.7171"
	task := startTask(t, a, "terminal", map[string]any{"command": "sleep " + marker}, nil)
	plugintest.WaitFor(t, 30*time.Second, "the task's command to start", func() bool { return len(plugintest.ProcessesWith(marker)) > 0 })
	for _, id := range listTasks(t, b) {
		if id == task.TaskId {
			t.Fatal("another session lists the task")
		}
	}
	if got, err := getTask(b, task.TaskId); err == nil {
		t.Fatalf("another session gets the task: %+v", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if res, err := b.TaskResult(ctx, mcp.TaskResultRequest{Params: mcp.TaskResultParams{TaskId: task.TaskId}}); err == nil {
		t.Fatalf("another session reads the task's result: %+v", res)
	}
	if res, err := cancelTask(b, task.TaskId); err == nil {
		t.Fatalf("another session cancels the task: %+v", res)
	}
	time.Sleep(300 * time.Millisecond)
	if len(plugintest.ProcessesWith(marker)) == 0 {
		t.Fatal("the task ended on another session's tasks/cancel")
	}
	if ids := listTasks(t, a); len(ids) != 1 || ids[0] != task.TaskId {
		t.Fatalf("its own session lists %v", ids)
	}
	if _, err := cancelTask(a, task.TaskId); err != nil {
		t.Fatal(err)
	}
	plugintest.WaitFor(t, 15*time.Second, "the cancelled task's process to end", func() bool { return len(plugintest.ProcessesWith(marker)) == 0 })
}

// TestEndedSessionCancelsItsMCPTasks: a client that ends its HTTP session
// takes its running MCP tasks with it.
func TestEndedSessionCancelsItsMCPTasks(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}})
	c := connect(t, s, mcp.ProtocolVersion20251125, nil)
	marker := "320.8181"
	startTask(t, c, "terminal", map[string]any{"command": "sleep " + marker}, nil)
	plugintest.WaitFor(t, 30*time.Second, "the task's command to start", func() bool { return len(plugintest.ProcessesWith(marker)) > 0 })
	// DELETE ends the session (by hand: mcp-go's client sends its DELETE
	// without the transport's headers, so without the bearer token).
	req, _ := http.NewRequest(http.MethodDelete, s.URL, nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", c.GetTransport().(*transport.StreamableHTTP).GetSessionId())
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: HTTP %d", resp.StatusCode)
	}
	plugintest.WaitFor(t, 15*time.Second, "the ended session's task process to end", func() bool { return len(plugintest.ProcessesWith(marker)) == 0 })
	noRunsLeft(t, s)
}

// TestTasksNeedASession: on the stateless revision, where mcp-go would
// scope no task to its client, the tasks extension is refused.
func TestTasksNeedASession(t *testing.T) {
	s := serve(t, serveOpts{})
	c := connect(t, s, mcp.ProtocolVersion20260728, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// CallTool sends the modern request's _meta; params.task rides along.
	req := mcp.CallToolRequest{Params: mcp.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": "x"}, Task: &mcp.TaskParams{}}}
	if res, err := c.CallTool(ctx, req); err == nil || !strings.Contains(err.Error(), "need a session") {
		t.Fatalf("a sessionless task-augmented call: %+v %v", res, err)
	}
	if _, err := getTask(c, "any"); err == nil || !strings.Contains(err.Error(), "need a session") {
		t.Fatalf("a sessionless tasks/get: %v", err)
	}
}

// TestTasksAreBounded: past MaxTasks running tasks a task is refused.
func TestTasksAreBounded(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}, maxTasks: 1})
	c := connect(t, s, mcp.ProtocolVersion20251125, nil)
	marker := "321.9191"
	task := startTask(t, c, "terminal", map[string]any{"command": "sleep " + marker}, nil)
	resp := sendTask(t, c, "read_file", map[string]any{"path": "x"}, nil)
	if resp.Error == nil || !strings.Contains(resp.Error.Message, "max concurrent tasks") {
		t.Fatalf("a task past the bound: %s %+v", resp.Result, resp.Error)
	}
	if _, err := cancelTask(c, task.TaskId); err != nil {
		t.Fatal(err)
	}
	plugintest.WaitFor(t, 15*time.Second, "the cancelled task's process to end", func() bool { return len(plugintest.ProcessesWith(marker)) == 0 })
}

// TestTaskRunsLinkInEitherOrder: a run is cancelled by its task id
// whether AfterCallTool links it before or after the handler starts, and
// whether tasks/cancel (or the end of its session) comes before the link
// or the start; no entry outlives a run.
func TestTaskRunsLinkInEitherOrder(t *testing.T) {
	ctx := context.Background()
	orders := map[string]func(tr *taskRuns, p *mcp.TaskParams) (context.Context, func()){
		"start, link, cancel": func(tr *taskRuns, p *mcp.TaskParams) (context.Context, func()) {
			tr.create("t1", "s1")
			run, end := tr.start(ctx, p)
			tr.link(ctx, p, "t1")
			tr.cancelID("t1")
			return run, end
		},
		"link, start, cancel": func(tr *taskRuns, p *mcp.TaskParams) (context.Context, func()) {
			tr.create("t1", "s1")
			tr.link(ctx, p, "t1")
			run, end := tr.start(ctx, p)
			tr.cancelID("t1")
			return run, end
		},
		"start, cancel, link": func(tr *taskRuns, p *mcp.TaskParams) (context.Context, func()) {
			tr.create("t1", "s1")
			run, end := tr.start(ctx, p)
			tr.cancelID("t1")
			tr.link(ctx, p, "t1")
			return run, end
		},
		"cancel, link, start": func(tr *taskRuns, p *mcp.TaskParams) (context.Context, func()) {
			tr.create("t1", "s1") // the handler has not started: only the id is known
			tr.cancelID("t1")
			tr.link(ctx, p, "t1")
			return tr.start(ctx, p)
		},
		"session ends, start, link": func(tr *taskRuns, p *mcp.TaskParams) (context.Context, func()) {
			tr.create("t1", "s1") // neither started nor linked when its session ends
			tr.endSession("s1")
			run, end := tr.start(ctx, p)
			tr.link(ctx, p, "t1")
			return run, end
		},
		"cancel, start, link": func(tr *taskRuns, p *mcp.TaskParams) (context.Context, func()) {
			tr.create("t1", "s1")
			tr.cancelID("t1")
			run, end := tr.start(ctx, p)
			tr.link(ctx, p, "t1")
			return run, end
		},
	}
	for name, order := range orders {
		t.Run(name, func(t *testing.T) {
			var tr taskRuns
			run, end := order(&tr, &mcp.TaskParams{})
			if run.Err() == nil {
				t.Fatal("the run was not cancelled")
			}
			end()
			if n := tr.count(); n != 0 {
				t.Fatalf("%d entries left", n)
			}
		})
	}
	t.Run("finished before its link, then cancelled", func(t *testing.T) {
		var tr taskRuns
		p := &mcp.TaskParams{}
		tr.create("t1", "s1")
		_, end := tr.start(ctx, p)
		end()
		tr.link(ctx, p, "t1")
		tr.cancelID("t1")
		if n := tr.count(); n != 0 {
			t.Fatalf("%d entries left", n)
		}
	})
	t.Run("an unrelated run is not cancelled", func(t *testing.T) {
		var tr taskRuns
		p, q := &mcp.TaskParams{}, &mcp.TaskParams{}
		runP, endP := tr.start(ctx, p)
		runQ, endQ := tr.start(ctx, q)
		tr.create("t1", "s1")
		tr.create("t2", "s1")
		tr.link(ctx, p, "t1")
		tr.link(ctx, q, "t2")
		tr.cancelID("t1")
		if runP.Err() == nil || runQ.Err() != nil {
			t.Fatalf("p %v, q %v", runP.Err(), runQ.Err())
		}
		endP()
		endQ()
		if n := tr.count(); n != 0 {
			t.Fatalf("%d entries left", n)
		}
	})
}

// TestCloseEndsTheTasks: closing the server stops its running tasks and
// returns once their runs have (none calls a host being closed).
func TestCloseEndsTheTasks(t *testing.T) {
	s := serve(t, serveOpts{rules: []string{"allow:terminal"}})
	c := connect(t, s, mcp.ProtocolVersion20251125, nil)
	marker := "322.1212"
	startTask(t, c, "terminal", map[string]any{"command": "sleep " + marker}, nil)
	plugintest.WaitFor(t, 30*time.Second, "the task's command to start", func() bool { return len(plugintest.ProcessesWith(marker)) > 0 })
	s.Srv.Close()
	if n := s.Srv.tasks.count(); n != 0 {
		t.Fatalf("Close returned with %d task runs left", n)
	}
	plugintest.WaitFor(t, 15*time.Second, "the closed server's task process to end", func() bool { return len(plugintest.ProcessesWith(marker)) == 0 })
}

// TestRefuseSessionlessTasks: every spelling encoding/json reads as
// params.task, and every tasks/* method, is refused without a session; a
// plain call is not.
func TestRefuseSessionlessTasks(t *testing.T) {
	for msg, refused := range map[string]bool{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","task":{}}}`:      true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","TASK":{}}}`:      true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","\u0074ask":{}}}`: true,
		`{"jsonrpc":"2.0","id":1,"method":"tasks/get","params":{"taskId":"x"}}`:                       true,
		`{"jsonrpc":"2.0","id":1,"method":"tasks/cancel","params":{"taskId":"x"}}`:                    true,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","task":null}}`:    false,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"read_file","arguments":{}}}`: false,
	} {
		err := refuseSessionlessTasks(context.Background(), 1, json.RawMessage(msg))
		if (err != nil) != refused {
			t.Errorf("%s: %v", msg, err)
		}
	}
}

// TestTaskUsesTheSessionAllows: a task is decided by its session's allows
// too: what the client allowed for the session runs as a task unasked.
func TestTaskUsesTheSessionAllows(t *testing.T) {
	s := serve(t, serveOpts{})
	ans := &answerer{decision: decisionSession}
	c := connect(t, s, mcp.ProtocolVersion20251125, ans)
	args := map[string]any{"path": "allowed.txt", "content": "x\n"}
	if res := call(t, c, "write_file", args); res.IsError || ans.asked.Load() != 1 {
		t.Fatalf("plain call: %q, asked %d", text(res), ans.asked.Load())
	}
	task := startTask(t, c, "write_file", args, nil)
	if res := taskResult(t, c, task.TaskId); res.IsError || ans.asked.Load() != 1 {
		t.Fatalf("task: %q, asked %d", contentText(res.Content), ans.asked.Load())
	}
}
