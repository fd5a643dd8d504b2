package agents_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	pt "demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
)

func wait(t *testing.T, c *agents.Child) agents.AgentRunResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, ok := c.Wait(ctx)
	if !ok {
		t.Fatal("the child did not end in 60s")
	}
	return r
}

func TestChildCompletesWithItsAnswer(t *testing.T) {
	f := newFixture(t, agents.Limits{}, []pt.Step{
		child("say hi", pt.Step{Text: []string{"hi there"}, Usage: &pt.Usage{InputTokens: 10, OutputTokens: 3}}),
	})
	c, err := spawn(t, f, f.h.Session(), "turn_a", agents.Request{Goal: "say hi"})
	if err != nil {
		t.Fatal(err)
	}
	r := wait(t, c)
	if r.Status != agents.StatusCompleted || r.Answer != "hi there" || r.Steps != 1 || r.Usage.OutputTokens != 3 || r.TaskID != c.TaskID {
		t.Fatalf("result %+v", r)
	}
}

// Every spelling of a tool the parent lacks is refused, and nothing
// starts: the selection only narrows the parent's own catalog.
func TestChildToolsOnlyNarrow(t *testing.T) {
	f := newFixture(t, agents.Limits{}, nil)
	root := f.h.Session()
	narrow, err := root.Delegate(context.Background(), toolhost.Delegation{Tools: []string{"read_file"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		parent *toolhost.Session
		tools  []string
	}{
		{root, []string{"Read_File"}},
		{root, []string{"read_file "}},
		{root, []string{"future_tool"}},
		{root, []string{"coding.read_file"}},
		{narrow, []string{"terminal"}},
		{narrow, []string{"read_file", "write_file"}},
	} {
		if _, err := spawn(t, f, tc.parent, "turn_n", agents.Request{Goal: "x", Tools: tc.tools}); !errors.Is(err, agents.ErrRefused) ||
			!strings.Contains(err.Error(), "a child can only be given tools its parent has") {
			t.Errorf("tools %q from a parent with %v: err %v", tc.tools, tc.parent.Depth(), err)
		}
	}
	tm, _ := f.h.Tasks()
	if ts, _ := tm.List(f.h.OperatorTaskScope()); len(ts) != 0 {
		t.Fatalf("refused children left tasks: %+v", ts)
	}
}

// A child given no tool list ("all") gets its parent's tools, not the
// core's: a narrowed parent's child stays narrowed.
func TestChildOfNarrowParentStaysNarrow(t *testing.T) {
	f := newFixture(t, agents.Limits{}, []pt.Step{child("look", pt.Step{Text: []string{"ok"}})})
	narrow, err := f.h.Session().Delegate(context.Background(), toolhost.Delegation{Tools: []string{"read_file"}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := spawn(t, f, narrow, "turn_w", agents.Request{Goal: "look"})
	if err != nil {
		t.Fatal(err)
	}
	tm, _ := f.h.Tasks()
	task, _, err := tm.Wait(context.Background(), f.h.OperatorTaskScope(), c.TaskID, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var m agents.Meta
	if err := json.Unmarshal(task.Agent, &m); err != nil {
		t.Fatal(err)
	}
	if strings.Join(m.Resolved.Tools, ",") != "read_file" || m.Depth != 2 || m.Parent != narrow.ID() {
		t.Fatalf("meta %+v", m)
	}
}

func TestDepthLimit(t *testing.T) {
	f := newFixture(t, agents.Limits{MaxDepth: 2}, nil)
	s1, _ := f.h.Session().Delegate(context.Background(), toolhost.Delegation{})
	s2, _ := s1.Delegate(context.Background(), toolhost.Delegation{})
	_, err := spawn(t, f, s2, "turn_d", agents.Request{Goal: "deeper"})
	if !errors.Is(err, agents.ErrRefused) || !strings.Contains(err.Error(), "depth limit: a child here would be 3 deep and the limit is 2") {
		t.Fatalf("err %v", err)
	}
}

// max_depth lowers the limit for the child's subtree and never raises it.
func TestMaxDepthOnlyLowers(t *testing.T) {
	f := newFixture(t, agents.Limits{MaxDepth: 2}, []pt.Step{
		child("one", pt.Step{Text: []string{"ok"}}), child("two", pt.Step{Text: []string{"ok"}}),
	})
	zero, big := 0, 99
	c0, err := spawn(t, f, f.h.Session(), "turn_m", agents.Request{Goal: "one", MaxDepth: &zero})
	if err != nil {
		t.Fatal(err)
	}
	c9, err := spawn(t, f, f.h.Session(), "turn_m", agents.Request{Goal: "two", MaxDepth: &big})
	if err != nil {
		t.Fatal(err)
	}
	m0, m9 := meta(t, f, c0), meta(t, f, c9)
	if m0.MaxDepth != 1 || m9.MaxDepth != 2 {
		t.Fatalf("max depth: %d and %d, want 1 (lowered) and 2 (not raised past the limit)", m0.MaxDepth, m9.MaxDepth)
	}
	wait(t, c0)
	wait(t, c9)
}

func meta(t *testing.T, f *fixture, c *agents.Child) agents.Meta {
	t.Helper()
	tm, _ := f.h.Tasks()
	task, err := tm.Get(f.h.OperatorTaskScope(), c.TaskID)
	if err != nil {
		t.Fatal(err)
	}
	var m agents.Meta
	if err := json.Unmarshal(task.Agent, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestFanOutAndPerTurnLimits(t *testing.T) {
	slow := pt.Step{Text: []string{"done"}, DelayMS: 1500}
	f := newFixture(t, agents.Limits{MaxRunning: 2, MaxPerTurn: 3}, []pt.Step{child("a", slow), child("b", slow), child("c", pt.Step{Text: []string{"ok"}}), child("d", pt.Step{Text: []string{"ok"}})})
	root := f.h.Session()
	a, err := spawn(t, f, root, "turn_f", agents.Request{Goal: "a"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := spawn(t, f, root, "turn_f", agents.Request{Goal: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := spawn(t, f, root, "turn_f", agents.Request{Goal: "c"}); !errors.Is(err, agents.ErrRefused) || !strings.Contains(err.Error(), "fan-out limit: 2 children already run") {
		t.Fatalf("third running child: %v", err)
	}
	wait(t, a)
	wait(t, b)
	c, err := spawn(t, f, root, "turn_f", agents.Request{Goal: "c"})
	if err != nil {
		t.Fatalf("after two ended: %v", err)
	}
	wait(t, c)
	if _, err := spawn(t, f, root, "turn_f", agents.Request{Goal: "d"}); !errors.Is(err, agents.ErrRefused) || !strings.Contains(err.Error(), "per-turn limit") {
		t.Fatalf("fourth child of one turn: %v", err)
	}
}

func TestChildLoopingHitsItsStepBudget(t *testing.T) {
	f := newFixture(t, agents.Limits{MaxSteps: 3}, []pt.Step{
		child("loop", pt.Step{ToolCalls: []pt.ToolCall{{ID: "c1", Name: "read_file", Args: `{"path":"a.txt"}`}}}),
	})
	f.write(t, "a.txt", "again\n")
	f.srv.RepeatLast()
	c, err := spawn(t, f, f.h.Session(), "turn_l", agents.Request{Goal: "loop"})
	if err != nil {
		t.Fatal(err)
	}
	if r := wait(t, c); r.Status != agents.StatusBudgetExceeded || r.Steps != 3 {
		t.Fatalf("result %+v", r)
	}
	if n := len(f.srv.Requests()); n != 3 {
		t.Fatalf("%d model requests, want 3", n)
	}
}

func TestChildOutputTokenBudget(t *testing.T) {
	f := newFixture(t, agents.Limits{MaxOutputTokens: 50}, []pt.Step{
		child("talk", pt.Step{ToolCalls: []pt.ToolCall{{ID: "c1", Name: "read_file", Args: `{"path":"a.txt"}`}}, Usage: &pt.Usage{InputTokens: 5, OutputTokens: 60}}),
	})
	f.write(t, "a.txt", "x\n")
	f.srv.RepeatLast()
	c, err := spawn(t, f, f.h.Session(), "turn_o", agents.Request{Goal: "talk"})
	if err != nil {
		t.Fatal(err)
	}
	if r := wait(t, c); r.Status != agents.StatusBudgetExceeded || !strings.Contains(r.Answer, "output-token budget") {
		t.Fatalf("result %+v", r)
	}
}

func TestChildWallTime(t *testing.T) {
	f := newFixture(t, agents.Limits{WallTime: 300 * time.Millisecond}, []pt.Step{child("slow", pt.Step{Text: []string{"late"}, DelayMS: 5000})})
	c, err := spawn(t, f, f.h.Session(), "turn_t", agents.Request{Goal: "slow"})
	if err != nil {
		t.Fatal(err)
	}
	if r := wait(t, c); r.Status != agents.StatusTimeout {
		t.Fatalf("result %+v", r)
	}
}

func TestChildWhoseModelErrors(t *testing.T) {
	f := newFixture(t, agents.Limits{}, []pt.Step{child("fail", pt.Step{Error: &pt.ErrorReply{Status: 400, Type: "invalid_request_error", Message: "bad request from the test"}})})
	c, err := spawn(t, f, f.h.Session(), "turn_e", agents.Request{Goal: "fail"})
	if err != nil {
		t.Fatal(err)
	}
	r := wait(t, c)
	if r.Status != agents.StatusFailed || !strings.Contains(r.Answer, "bad request from the test") {
		t.Fatalf("result %+v", r)
	}
	tm, _ := f.h.Tasks()
	if task, _, _ := tm.Wait(context.Background(), f.h.OperatorTaskScope(), c.TaskID, 30*time.Second); task.State != runtime.TaskFailed || task.ExitReason != agents.StatusFailed {
		t.Fatalf("task %+v", task)
	}
}

// A foreground child (notify_policy wait) whose parent's turn is stopped
// is cancelled with it; its task records the cancellation.
func TestParentCancelledWhileChildRuns(t *testing.T) {
	f := newFixture(t, agents.Limits{}, []pt.Step{child("hang", pt.Step{Text: []string{"late"}, DelayMS: 30000})})
	ctx, cancel := context.WithCancel(context.Background())
	var out string
	var err error
	var wg sync.WaitGroup
	wg.Go(func() {
		args := `{"goal":"hang","notify_policy":"wait"}`
		out, err = f.gate.Delegate(ctx, f.h.Session(), delegateCall("turn_c", args))
	})
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	if err := f.srv.WaitRequests(wctx, 1); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	cancel()
	wg.Wait()
	if err != nil || !strings.Contains(out, `"status":"cancelled"`) {
		t.Fatalf("out %s err %v", out, err)
	}
	if d := time.Since(began); d > 5*time.Second {
		t.Fatalf("the cancelled child took %v to end", d)
	}
}

// A child started with max_depth 0 cannot fork through its own
// delegate_task: the lowered limit follows it into its subtree.
func TestMaxDepthZeroChildCannotDelegate(t *testing.T) {
	f := newFixture(t, agents.Limits{}, []pt.Step{
		child("outer", pt.Step{ToolCalls: []pt.ToolCall{{ID: "d1", Name: "delegate_task", Args: `{"goal":"inner","max_depth":5,"notify_policy":"wait"}`}}}),
		child("outer", pt.Step{Text: []string{"could not"}}),
		child("inner", pt.Step{Text: []string{"should never run"}}),
	})
	out, err := f.gate.Delegate(context.Background(), f.h.Session(), delegateCall("turn_z", `{"goal":"outer","max_depth":0,"notify_policy":"wait"}`))
	if err != nil || !strings.Contains(out, `"status":"completed"`) {
		t.Fatalf("out %s err %v", out, err)
	}
	reqs := f.srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "depth limit: a child here would be 2 deep and the limit is 1") {
		t.Fatalf("%d requests; the second: %.2000s", len(reqs), reqs[len(reqs)-1].Body)
	}
}

// Cancelling a foreground child ends the command its tool call runs:
// its process tree does not outlive the cancel.
func TestCancelledChildEndsItsProcessTree(t *testing.T) {
	f := newFixture(t, agents.Limits{}, []pt.Step{
		child("sleeper", pt.Step{ToolCalls: []pt.ToolCall{{ID: "s1", Name: "terminal", Args: `{"command":"sleep 31.25"}`}}}),
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	go func() {
		out, _ := f.gate.Delegate(ctx, f.h.Session(), dispatch.DelegateCall{Turn: "turn_s", CallID: "c", Asker: &recordingAsker{answer: approval.AllowOnce},
			Args: json.RawMessage(`{"goal":"sleeper","notify_policy":"wait"}`)})
		done <- out
	}()
	deadline := time.Now().Add(20 * time.Second)
	for !sleeping() {
		if time.Now().After(deadline) {
			t.Fatal("the child's command never started")
		}
		time.Sleep(20 * time.Millisecond)
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
	for end := time.Now().Add(5 * time.Second); sleeping(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("sleep 31.25 outlived its cancelled child")
		}
	}
}

// sleeping reports whether a process runs `sleep 31.25`.
func sleeping() bool {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		b, err := os.ReadFile("/proc/" + d.Name() + "/cmdline")
		if err == nil && strings.Contains(string(b), "sleep\x0031.25") {
			return true
		}
	}
	return false
}
