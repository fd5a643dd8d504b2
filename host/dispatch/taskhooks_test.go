package dispatch

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/runtime"
)

// taskToolTurn is a turn of principal and session that runs background
// stream calls and the task tools over tasks, with completions recorded
// in done.
func (h *harness) taskToolTurn(t *testing.T, tasks *runtime.TaskManager, done *Completions, principal, session string) *Turn {
	t.Helper()
	turn := h.turn(t, []string{"fs.read", "terminal.exec"}, &answer{a: approval.AllowOnce}, h.streamSource(t), h.controlSource(t))
	turn.Authority.Principal, turn.Authority.Session = principal, session
	turn.ArtifactRoot = filepath.Join(t.TempDir(), "runtime", "artifacts", "0f1e2d")
	turn.Background = &Background{Tasks: tasks, Completions: done}
	return turn
}

func callTool(turn *Turn, name, args string) Outcome {
	return turn.Call(context.Background(), ToolCall{ID: name, Name: name, Args: []byte(args)})
}

func TestTaskToolsReachOnlyTheTurnsOwnTasks(t *testing.T) {
	h := newHarness(t)
	tasks, _, err := runtime.NewTaskManager(context.Background(), h.store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tasks.Close)
	done := &Completions{}
	turn := h.taskToolTurn(t, tasks, done, "test", "ses_test")

	endless := startTask(t, turn, `{"command":"make watch","background":true}`)
	// A task is queued until its plugin call starts; then it runs.
	var out Outcome
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		out = callTool(turn, "task_status", fmt.Sprintf(`{"task_id":%q}`, endless))
		if !out.OK() || !strings.HasPrefix(out.Views.Model.String(), endless+" queued (stream)") || time.Now().After(deadline) {
			break
		}
	}
	if !out.OK() || !strings.HasPrefix(out.Views.Model.String(), endless+" running (stream)") || !strings.Contains(out.Views.Model.String(), ": make watch") {
		t.Fatalf("task_status = %s %q", out.Status, out.Views.Model.String())
	}

	// A wait that times out returns the current status, not a failure.
	out = callTool(turn, "yield_until", fmt.Sprintf(`{"task_id":%q,"timeout_seconds":0}`, endless))
	if !out.OK() || !strings.Contains(out.Views.Model.String(), "running") || !strings.Contains(out.Views.Model.String(), "not a failure") {
		t.Fatalf("yield_until at timeout = %s %q", out.Status, out.Views.Model.String())
	}
	if done.Consumed(endless) {
		t.Error("a wait that timed out consumed the completion")
	}

	short := startTask(t, turn, `{"command":"make bench","background":true,"lines":3,"interval_ms":20}`)
	out = callTool(turn, "yield_until", fmt.Sprintf(`{"task_id":%q,"timeout_seconds":30}`, short))
	if !out.OK() || out.Views.Model.String() != short+" succeeded (stream) return code 0 exit reason exited: make bench" {
		t.Fatalf("yield_until to the end = %s %q", out.Status, out.Views.Model.String())
	}
	if !done.Consumed(short) {
		t.Error("yield_until returned the end but did not consume the completion")
	}

	out = callTool(turn, "task_list", `{}`)
	lines := strings.Split(strings.TrimSpace(out.Views.Model.String()), "\n")
	if !out.OK() || len(lines) != 2 || !strings.HasPrefix(lines[0], short) || !strings.HasPrefix(lines[1], endless) {
		t.Fatalf("task_list = %s %q; want both tasks, newest first", out.Status, out.Views.Model.String())
	}

	// The model view carries no owner, call id, result or log.
	for _, leak := range []string{"ses_test", "principal", "result_ref", "line 0 of make bench", "stdout"} {
		if strings.Contains(out.Views.Model.String(), leak) {
			t.Errorf("task_list shows %q: %q", leak, out.Views.Model.String())
		}
	}

	out = callTool(turn, "task_control", fmt.Sprintf(`{"task_id":%q,"command":"cancel"}`, endless))
	if !out.OK() || !strings.HasPrefix(out.Views.Model.String(), endless+" cancelled (stream)") {
		t.Fatalf("task_control cancel = %s %q", out.Status, out.Views.Model.String())
	}
	if task, _ := tasks.Get(testScope, endless); task.State != runtime.TaskCancelled {
		t.Errorf("after cancel the task is %s", task.State)
	}

	// Another session's and another principal's turn see the tasks as
	// missing, in every tool, in the very words a missing id gets.
	missing := "task_00000000000000000000"
	for _, other := range []*Turn{
		h.taskToolTurn(t, tasks, done, "test", "ses_other"),
		h.taskToolTurn(t, tasks, done, "someone_else", "ses_test"),
	} {
		for _, c := range []struct{ tool, args string }{
			{"task_status", `{"task_id":%q}`},
			{"yield_until", `{"task_id":%q,"timeout_seconds":1}`},
			{"task_control", `{"task_id":%q,"command":"cancel"}`},
		} {
			foreign := callTool(other, c.tool, fmt.Sprintf(c.args, short))
			absent := callTool(other, c.tool, fmt.Sprintf(c.args, missing))
			if foreign.Status != StatusToolError || foreign.Status != absent.Status ||
				strings.ReplaceAll(foreign.Views.Model.String(), short, "ID") != strings.ReplaceAll(absent.Views.Model.String(), missing, "ID") {
				t.Errorf("%s %s: foreign = %s %q, missing = %s %q; want the same refusal",
					other.Authority.Principal, c.tool, foreign.Status, foreign.Views.Model.String(), absent.Status, absent.Views.Model.String())
			}
		}
		if out := callTool(other, "task_list", `{}`); !out.OK() || strings.Contains(out.Views.Model.String(), "task_") {
			t.Errorf("%s/%s task_list = %s %q; want none", other.Authority.Principal, other.Authority.Session, out.Status, out.Views.Model.String())
		}
	}
	if task, _ := tasks.Get(testScope, short); task.State != runtime.TaskSucceeded {
		t.Errorf("a foreign cancel changed the task: %s", task.State)
	}
}

func TestTaskToolsRefuseWithoutATaskManager(t *testing.T) {
	h := newHarness(t)
	turn := h.turn(t, []string{"terminal.exec"}, &answer{a: approval.AllowOnce}, h.controlSource(t))
	out := callTool(turn, "task_list", `{}`)
	if out.Status != StatusToolError || !strings.Contains(out.Views.Model.String(), "not available") {
		t.Errorf("task_list without tasks = %s %q", out.Status, out.Views.Model.String())
	}
}

func TestTaskControlKnowsOnlyCancel(t *testing.T) {
	h := newHarness(t)
	tasks, _, err := runtime.NewTaskManager(context.Background(), h.store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tasks.Close)
	turn := h.taskToolTurn(t, tasks, nil, "test", "ses_test")
	id := startTask(t, turn, `{"command":"make watch","background":true}`)
	defer tasks.Cancel(context.Background(), testScope, id)
	// A task is queued until its plugin call starts; then it runs.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if task, _ := tasks.Get(testScope, id); task.State != runtime.TaskQueued {
			break
		}
	}
	out := callTool(turn, "task_control", fmt.Sprintf(`{"task_id":%q,"command":"pause"}`, id))
	if out.OK() || !strings.Contains(out.Views.Model.String(), "cancel") {
		t.Errorf("task_control pause = %s %q", out.Status, out.Views.Model.String())
	}
	if task, _ := tasks.Get(testScope, id); task.State != runtime.TaskRunning {
		t.Errorf("the task is %s after a refused command", task.State)
	}
}
