package mcpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
)

// The MCP tasks extension (2025-11-25) through mcp-go's hybrid mode: every
// listed tool declares execution.taskSupport "optional", and a tools/call
// with params.task is answered at once with a CreateTaskResult while handle
// runs the call; tasks/get, tasks/result, tasks/list and tasks/cancel are
// the library's, each scoped to the MCP session that made the task.
//
// mcp-go runs the handler of such a call on a context derived from the
// request's, which ends as soon as the create-task answer is written; so
// the run is detached (context.WithoutCancel), and taskRuns links it back
// to what must still end it: tasks/cancel (the OnTaskCancelled hook, by
// task id), the task's TTL, the end of the client's session and of the
// server.

const (
	// DefaultMaxTasks bounds the tasks running at once on one server.
	DefaultMaxTasks = 16
	// MaxTaskTTL is the longest a task is kept (and may run): a client's
	// larger or missing ttl is lowered to it, so the library forgets every
	// task in the end.
	MaxTaskTTL = time.Hour
	// MaxKeptTasks bounds the tasks the server keeps, running or done,
	// and MaxKeptTasksPerSession those of one client session. mcp-go
	// keeps a finished task, its result and a goroutine until its ttl
	// ends, and DefaultMaxTasks counts only the running ones: a client
	// that made quick tasks in a loop grew the server by some 4.9 KB and
	// one goroutine a task for an hour (TestKeptTasksAreBounded). A task
	// is counted until its ttl ends, its session's end included (the
	// library keeps it that long too).
	MaxKeptTasks           = 256
	MaxKeptTasksPerSession = 64
)

// errTasksNeedSession refuses the tasks extension to a request without an
// MCP session (the stateless 2026-07-28 revision): mcp-go scopes tasks by
// session id, and a request without one would see every client's tasks.
var errTasksNeedSession = errors.New("MCP tasks need a session (protocol 2025-11-25): a request without one could reach another client's tasks; call the tool without task augmentation, or use a background terminal call and the task tools")

// taskOptions wire the tasks extension into the server being built.
func (s *Server) taskOptions(hooks *server.Hooks, maxTasks int) []server.ServerOption {
	if maxTasks <= 0 {
		maxTasks = DefaultMaxTasks
	}
	hooks.AddOnRequestInitialization(refuseSessionlessTasks)
	hooks.AddOnRequestInitialization(func(ctx context.Context, _ any, message any) error {
		if !isTaskCall(message) {
			return nil
		}
		return s.tasks.room(sessionIDOf(ctx), time.Now())
	})
	hooks.AddBeforeCallTool(func(_ context.Context, _ any, req *mcp.CallToolRequest) { boundTTL(req.Params.Task) })
	// The request the library passes here holds the same Params.Task
	// pointer as the handler's copy; the result names the task id.
	hooks.AddAfterCallTool(func(ctx context.Context, _ any, req *mcp.CallToolRequest, res any) {
		if created, ok := res.(*mcp.CreateTaskResult); ok && req.Params.Task != nil {
			s.tasks.link(ctx, req.Params.Task, created.Task.TaskId)
		}
	})
	th := &server.TaskHooks{}
	// Both are called with the library's task lock held: they only take ours.
	th.AddOnTaskCreated(func(_ context.Context, m server.TaskMetrics) { s.tasks.create(m.TaskID, m.SessionID) })
	th.AddOnTaskCancelled(func(_ context.Context, m server.TaskMetrics) { s.tasks.cancelID(m.TaskID) })
	return []server.ServerOption{
		server.WithTaskCapabilities(true, true, true),
		server.WithTaskHooks(th),
		server.WithMaxConcurrentTasks(maxTasks),
	}
}

// refuseSessionlessTasks answers a tasks/* request or a task-augmented
// tools/call that has no MCP session with errTasksNeedSession.
func refuseSessionlessTasks(ctx context.Context, _ any, message any) error {
	if sessionIDOf(ctx) != "" {
		return nil
	}
	method, task := taskRequest(message)
	if strings.HasPrefix(method, "tasks/") || (method == string(mcp.MethodToolsCall) && task) {
		return errTasksNeedSession
	}
	return nil
}

// isTaskCall reports whether message is a task-augmented tools/call.
func isTaskCall(message any) bool {
	method, task := taskRequest(message)
	return method == string(mcp.MethodToolsCall) && task
}

// taskRequest is a request's method, and whether its params carry a task.
// Decoded in full, as the library will: a byte search for "task" would
// miss "TASK" and "\u0074ask", which encoding/json takes for it.
func taskRequest(message any) (method string, task bool) {
	raw, ok := message.(json.RawMessage)
	if !ok {
		return "", false
	}
	var m struct {
		Method string `json:"method"`
		Params struct {
			Task json.RawMessage `json:"task"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) != nil {
		return "", false // the library answers what it cannot parse
	}
	return m.Method, len(m.Params.Task) > 0 && string(m.Params.Task) != "null"
}

// boundTTL lowers a task's requested ttl to MaxTaskTTL, and gives one to a
// task that asked for none (the library would keep it forever).
func boundTTL(p *mcp.TaskParams) {
	if p == nil {
		return
	}
	limit := MaxTaskTTL.Milliseconds()
	if p.TTL == nil || *p.TTL <= 0 || *p.TTL > limit {
		p.TTL = &limit
	}
}

func sessionIDOf(ctx context.Context) string {
	if cs := server.ClientSessionFromContext(ctx); cs != nil {
		return cs.SessionID()
	}
	return ""
}

// taskResultOf is a task's outcome: no client was asked, and a call that
// needed asking says how it could be.
func taskResultOf(out dispatch.Outcome) *mcp.CallToolResult {
	res := resultOf(out, true)
	if tc, ok := res.Content[0].(mcp.TextContent); ok && out.Status == dispatch.StatusDenied && out.Approval.Via == approval.ViaDeny {
		tc.Text += "\n(this call ran as an MCP task, and a task does not ask the client for approval: call it without task augmentation " +
			"to be asked, or the operator approves it with --approve allow:" + out.Tool + " on the `demiurge mcp serve` command line.)"
		res.Content[0] = tc
	}
	return res
}

// taskRuns are the detached runs of task-augmented calls. A run is known
// by its request's task params from the handler's start, and by its task
// id once AfterCallTool links them; the two come in either order. An entry
// goes when its run has finished and been linked.
type taskRuns struct {
	mu   sync.Mutex
	runs map[*mcp.TaskParams]*taskRun
	byID map[string]*taskRun
	// created are the tasks made and not linked yet, by id: a client can
	// learn an id from tasks/list, or end its session, before its call's
	// answer. Every created task is linked right after.
	created map[string]*createdTask
	// kept are the tasks the library keeps, by id, until their ttl ends.
	kept   map[string]keptTask
	closed bool
	// running counts the runs in their handler; close waits on drained
	// for them, so none outlives the host it calls.
	running int
	drained chan struct{}
}

type keptTask struct {
	session string
	until   time.Time
}

// room refuses a new task when the server, or session's share of it,
// keeps as many as it may (MaxKeptTasks, MaxKeptTasksPerSession).
func (t *taskRuns) room(session string, now time.Time) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	mine := 0
	for id, k := range t.kept {
		if !now.Before(k.until) {
			delete(t.kept, id)
		} else if k.session == session {
			mine++
		}
	}
	all := len(t.kept)
	for _, c := range t.created { // made, not linked (and kept) yet
		all++
		if c.session == session {
			mine++
		}
	}
	if mine < MaxKeptTasksPerSession && all < MaxKeptTasks {
		return nil
	}
	return fmt.Errorf("too many MCP tasks are kept (%d of this session, at most %d; %d of the server, at most %d): a task, done or not, is kept until its ttl ends. "+
		"Ask for a shorter ttl, wait, or call the tool without task augmentation", mine, MaxKeptTasksPerSession, all, MaxKeptTasks)
}

type createdTask struct {
	session   string
	cancelled bool
}

type taskRun struct {
	session  string
	id       string
	cancel   context.CancelFunc // nil until the handler starts
	stopped  bool
	finished bool
}

func (r *taskRun) stop() {
	r.stopped = true
	if r.cancel != nil {
		r.cancel()
	}
}

// entry is p's run, made on first sight. Call with mu held.
func (t *taskRuns) entry(p *mcp.TaskParams) *taskRun {
	if t.runs == nil {
		t.runs, t.byID = map[*mcp.TaskParams]*taskRun{}, map[string]*taskRun{}
	}
	r := t.runs[p]
	if r == nil {
		r = &taskRun{}
		t.runs[p] = r
	}
	return r
}

// create notes a task the library made for session (the OnTaskCreated
// hook).
func (t *taskRuns) create(id, session string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.created == nil {
		t.created = map[string]*createdTask{}
	}
	t.created[id] = &createdTask{session: session}
}

// start detaches the run of the task-augmented call ctx and p belong to:
// it ends at the task's ttl or when stopped; end releases it.
func (t *taskRuns) start(ctx context.Context, p *mcp.TaskParams) (run context.Context, end func()) {
	ttl := MaxTaskTTL
	if p.TTL != nil && *p.TTL > 0 {
		ttl = min(ttl, time.Duration(*p.TTL)*time.Millisecond)
	}
	run, cancel := context.WithTimeout(context.WithoutCancel(ctx), ttl)
	t.mu.Lock()
	r := t.entry(p)
	r.session, r.cancel = sessionIDOf(ctx), cancel
	if r.stopped || t.closed {
		cancel()
	}
	t.running++
	t.mu.Unlock()
	return run, func() {
		cancel()
		t.finish(p)
	}
}

func (t *taskRuns) finish(p *mcp.TaskParams) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.running--; t.running == 0 && t.drained != nil {
		close(t.drained)
		t.drained = nil
	}
	r := t.runs[p]
	if r == nil {
		return
	}
	r.finished = true
	if r.id != "" {
		delete(t.runs, p)
		delete(t.byID, r.id)
	}
}

// link names p's run by its task id.
func (t *taskRuns) link(ctx context.Context, p *mcp.TaskParams, id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.entry(p)
	if r.id != "" {
		return
	}
	r.id = id
	if r.session == "" {
		r.session = sessionIDOf(ctx)
	}
	if t.kept == nil {
		t.kept = map[string]keptTask{}
	}
	ttl := MaxTaskTTL // boundTTL gave every task one
	if p.TTL != nil {
		ttl = time.Duration(*p.TTL) * time.Millisecond
	}
	t.kept[id] = keptTask{session: r.session, until: time.Now().Add(ttl)}
	if c := t.created[id]; (c != nil && c.cancelled) || t.closed {
		r.stop()
	}
	delete(t.created, id)
	if r.finished {
		delete(t.runs, p)
		return
	}
	t.byID[id] = r
}

// cancelID stops the run of task id (tasks/cancel).
func (t *taskRuns) cancelID(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if r := t.byID[id]; r != nil {
		r.stop()
		return
	}
	if c := t.created[id]; c != nil {
		c.cancelled = true // stopped when it is linked
	}
}

// endSession stops the runs of an MCP session that ended.
func (t *taskRuns) endSession(session string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range t.runs {
		if r.session == session {
			r.stop()
		}
	}
	for _, c := range t.created {
		if c.session == session {
			c.cancelled = true
		}
	}
}

// closeWait bounds how long close waits for the stopped runs to return.
const closeWait = 10 * time.Second

// close stops every run, and any that starts later, and waits (at most
// closeWait) for them to return.
func (t *taskRuns) close() {
	t.mu.Lock()
	t.closed = true
	for _, r := range t.runs {
		r.stop()
	}
	var drained chan struct{}
	if t.running > 0 {
		if t.drained == nil {
			t.drained = make(chan struct{})
		}
		drained = t.drained
	}
	t.mu.Unlock()
	if drained != nil {
		select {
		case <-drained:
		case <-time.After(closeWait):
		}
	}
}

// count is how many runs are known, for tests.
func (t *taskRuns) count() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.runs) + len(t.byID) + len(t.created)
}
