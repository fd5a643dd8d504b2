package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/runtime"
)

// streamSource is the fixture toolset with its stream tool declared as the
// terminal is: a command subject with a background argument.
func (h *harness) streamSource(t testing.TB) catalog.Source {
	src := h.source(t, "fixture", autoMeta)
	for i := range src.Tools {
		if src.Tools[i].Name == "stream" {
			src.Tools[i].Effect = catalog.EffectExec
			src.Tools[i].Subjects = []catalog.Subject{{Kind: catalog.SubjectCommand, Arg: "command", BackgroundArg: "background"}}
		}
	}
	return src
}

// backgroundTurn is a turn that may run background calls, approved by p.
func (h *harness) backgroundTurn(t testing.TB, p approval.Provider, secrets map[string]string) (*Turn, *runtime.TaskManager) {
	t.Helper()
	tasks, _, err := runtime.NewTaskManager(context.Background(), h.store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tasks.Close) // before the store closes: cleanups run last-in first-out
	turn := h.turn(t, []string{"fs.read"}, p, h.streamSource(t))
	turn.ArtifactRoot = filepath.Join(t.TempDir(), "runtime", "artifacts", "0f1e2d")
	turn.Background = &Background{Tasks: tasks, Secrets: func() map[string]string { return secrets }}
	return turn, tasks
}

var (
	testScope = runtime.TaskScope{Principal: "test", Session: "ses_test"}
	taskIDRe  = regexp.MustCompile(`task_[0-9a-f]{20}`)
)

func startTask(t *testing.T, turn *Turn, args string) string {
	t.Helper()
	out := turn.Call(context.Background(), ToolCall{ID: "bg", Name: "stream", Args: []byte(args)})
	id := taskIDRe.FindString(out.Views.Model.String())
	if !out.OK() || id == "" {
		t.Fatalf("background call = %s %q; want ok with a task id", out.Status, out.Views.Model.String())
	}
	return id
}

func logText(t *testing.T, tasks *runtime.TaskManager, id string) string {
	t.Helper()
	var b strings.Builder
	err := tasks.Logs(context.Background(), testScope, id, 0, false, func(c runtime.LogChunk) error {
		fmt.Fprintf(&b, "%s: %s", c.Stream, c.Data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestBackgroundCallReturnsATaskAtOnce(t *testing.T) {
	h := newHarness(t)
	turn, tasks := h.backgroundTurn(t, &answer{a: approval.AllowOnce}, nil)
	// A task that runs until cancelled: the call answers anyway.
	endless := startTask(t, turn, `{"command":"make watch","background":true}`)
	if task, err := tasks.Get(testScope, endless); err != nil || task.State.Terminal() {
		t.Fatalf("endless task = %s, %v", task.State, err)
	}
	tasks.Cancel(context.Background(), testScope, endless)

	id := startTask(t, turn, `{"command":"make bench","background":true,"lines":6,"interval_ms":40}`)
	task, timedOut, err := tasks.Wait(context.Background(), testScope, id, 10*time.Second)
	if err != nil || timedOut {
		t.Fatalf("wait: %v, timed out %v", err, timedOut)
	}
	if task.State != runtime.TaskSucceeded || task.ReturnCode == nil || *task.ReturnCode != 0 || task.ExitReason != "exited" ||
		task.Summary != "make bench" || task.Tool != "stream" || task.Principal != "test" || task.Session != "ses_test" {
		t.Fatalf("task = %+v", task)
	}
	if !regexp.MustCompile(`^0f1e2d/inv_[0-9a-f]+/stdout\.log$`).MatchString(task.ResultRef) || len(task.Artifacts) != 2 {
		t.Errorf("result_ref %q, artifacts %v; want the opaque root and the path under it", task.ResultRef, task.Artifacts)
	}
	if st := task.Streams["stdout"]; st.Bytes == 0 || !strings.Contains(st.Tail, "line 5 of make bench") {
		t.Errorf("stdout stats = %+v", st)
	}
	logs := logText(t, tasks, id)
	if !strings.Contains(logs, "stdout: line 0 of make bench\n") || !strings.Contains(logs, "stderr: warning 4\n") {
		t.Errorf("task log = %q", logs)
	}
	// The call and the task's end are both audited.
	for _, kind := range []string{EventKindToolCall, runtime.EventKindTaskFinished} {
		if evs, _ := h.store.Events(runtime.EventQuery{Kind: kind, Tool: "stream"}); len(evs) != 2 {
			t.Errorf("%d %s events, want 2 (one per task)", len(evs), kind)
		}
	}
}

func TestBackgroundExitCodeFailsTheTask(t *testing.T) {
	h := newHarness(t)
	turn, tasks := h.backgroundTurn(t, &answer{a: approval.AllowOnce}, nil)
	id := startTask(t, turn, `{"command":"false","background":true,"lines":1,"exit_code":3}`)
	task, _, _ := tasks.Wait(context.Background(), testScope, id, 10*time.Second)
	if task.State != runtime.TaskFailed || task.ReturnCode == nil || *task.ReturnCode != 3 {
		t.Fatalf("task = %s rc %v", task.State, task.ReturnCode)
	}
}

// TestBackgroundOutputIsRedactedAgain: the host redacts task output with the
// call's own secrets and every secret it knows before storing it.
func TestBackgroundOutputIsRedactedAgain(t *testing.T) {
	h := newHarness(t)
	known := "db-password-4f9a1c77e2"
	turn, tasks := h.backgroundTurn(t, &answer{a: approval.AllowOnce}, map[string]string{"DB_PASSWORD": known})
	token := "ghp_" + strings.Repeat("a1B2", 9)
	cmd := fmt.Sprintf("deploy --password %s --token %s", known, token)
	args, _ := json.Marshal(map[string]any{"command": cmd, "background": true, "lines": 3})
	id := startTask(t, turn, string(args))
	task, _, _ := tasks.Wait(context.Background(), testScope, id, 10*time.Second)
	record, _ := json.Marshal(task)
	for what, text := range map[string]string{"log": logText(t, tasks, id), "record": string(record)} {
		if strings.Contains(text, known) || strings.Contains(text, token) {
			t.Errorf("%s holds a secret: %q", what, text)
		}
	}
	if logs := logText(t, tasks, id); !strings.Contains(logs, "<redacted:DB_PASSWORD>") {
		t.Errorf("log = %q; want the known secret's marker", logs)
	}
}

// TestBackgroundOutputTokensAreRedacted: a well-known token format in the
// output is redacted in the stored log, like in the model view, even when
// nothing in the arguments named it as a secret.
func TestBackgroundOutputTokensAreRedacted(t *testing.T) {
	h := newHarness(t)
	turn, tasks := h.backgroundTurn(t, &answer{a: approval.AllowOnce}, nil)
	token := "ghp_" + strings.Repeat("Zx9", 12)
	args, _ := json.Marshal(map[string]any{"command": "printf " + token + " é", "background": true, "lines": 2})
	id := startTask(t, turn, string(args))
	tasks.Wait(context.Background(), testScope, id, 10*time.Second)
	logs := logText(t, tasks, id)
	if strings.Contains(logs, token) || !strings.Contains(logs, "line 1 of printf") || !strings.Contains(logs, " é\n") {
		t.Errorf("log = %q; want the token redacted and the rest intact", logs)
	}
}

func TestBackgroundRefusals(t *testing.T) {
	h := newHarness(t)
	p := &answer{a: approval.AllowOnce}
	turn, _ := h.backgroundTurn(t, p, nil)
	out := turn.Call(context.Background(), ToolCall{ID: "sb", Name: "stream",
		Args: []byte(`{"command":"make","background":true,"secret_bindings":[{"source":"env:GITHUB_TOKEN"}]}`)})
	if out.Status != StatusInvalidArguments || !strings.Contains(out.Views.Model.String(), "foreground-only") || p.asked != 0 {
		t.Errorf("background with bindings = %s %q (asked %d); want refused before approval", out.Status, out.Views.Model.String(), p.asked)
	}
	plain := h.turn(t, []string{"fs.read"}, p, h.streamSource(t))
	out = plain.Call(context.Background(), ToolCall{ID: "nm", Name: "stream", Args: []byte(`{"command":"make","background":true}`)})
	if out.Status != StatusInvalidArguments || !strings.Contains(out.Views.Model.String(), "not available") {
		t.Errorf("background without a task manager = %s %q", out.Status, out.Views.Model.String())
	}
	// A foreground call of the same tool runs to its end in the call.
	out = turn.Call(context.Background(), ToolCall{ID: "fg", Name: "stream", Args: []byte(`{"command":"make","lines":2}`)})
	if !out.OK() || taskIDRe.MatchString(out.Views.Model.String()) {
		t.Errorf("foreground call = %s %q", out.Status, out.Views.Model.String())
	}
}

// TestBackgroundCancelKillsTheWork cancels a task whose tool started a
// child process: the task is recorded cancelled and the child is gone.
func TestBackgroundCancelKillsTheWork(t *testing.T) {
	h := newHarness(t)
	turn, tasks := h.backgroundTurn(t, &answer{a: approval.AllowOnce}, nil)
	id := startTask(t, turn, `{"command":"sleep forever","background":true,"child":true,"interval_ms":20}`)
	pid := childPID(t, tasks, id)
	task, err := tasks.Cancel(context.Background(), testScope, id)
	if err != nil || task.State != runtime.TaskCancelled || task.ExitReason != runtime.ExitReasonCancelled {
		t.Fatalf("cancel = %s/%s, %v", task.State, task.ExitReason, err)
	}
	stored, err := h.store.Task(testScope, id)
	if err != nil || stored.State != runtime.TaskCancelled {
		t.Fatalf("stored = %s, %v", stored.State, err)
	}
	waitGone(t, pid, time.Second)
}

// TestFiftyBackgroundTasksCancelledAtOnce runs 50 real background calls
// through the plugin and cancels them all together.
func TestFiftyBackgroundTasksCancelledAtOnce(t *testing.T) {
	h := newHarness(t)
	turn, tasks := h.backgroundTurn(t, &answer{a: approval.AllowOnce}, nil)
	turn.MaxCalls = 100
	var ids []string
	for range 50 {
		ids = append(ids, startTask(t, turn, `{"command":"make","background":true,"interval_ms":5}`))
	}
	// Cancel them once every one is running in the plugin and writing.
	for _, id := range ids {
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if task, _ := tasks.Get(testScope, id); task.Streams["stdout"].Bytes > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s wrote nothing", id)
			}
		}
	}
	done := make(chan runtime.Task, len(ids))
	for _, id := range ids {
		go func() {
			task, err := tasks.Cancel(context.Background(), testScope, id)
			if err != nil {
				t.Error(err)
			}
			done <- task
		}()
	}
	for range ids {
		if task := <-done; task.State != runtime.TaskCancelled {
			t.Errorf("%s ended %s", task.ID, task.State)
		}
	}
	list, err := h.store.Tasks(testScope)
	if err != nil || len(list) != 50 {
		t.Fatalf("%d tasks recorded (%v)", len(list), err)
	}
	for _, task := range list {
		if task.State != runtime.TaskCancelled || task.Ended.IsZero() || task.LogChunks == 0 {
			t.Errorf("%s recorded as %s with %d log chunks", task.ID, task.State, task.LogChunks)
		}
	}
	if n := tasks.Running(); n != 0 {
		t.Errorf("%d still running", n)
	}
}

// TestClosingTheManagerCancelsTasks: the host's close path.
func TestClosingTheManagerCancelsTasks(t *testing.T) {
	h := newHarness(t)
	turn, tasks := h.backgroundTurn(t, &answer{a: approval.AllowOnce}, nil)
	id := startTask(t, turn, `{"command":"sleep forever","background":true,"child":true}`)
	pid := childPID(t, tasks, id)
	tasks.Close()
	task, err := h.store.Task(testScope, id)
	if err != nil || task.State != runtime.TaskCancelled || task.ExitReason != runtime.ExitReasonHostClose {
		t.Fatalf("after close: %s/%s, %v", task.State, task.ExitReason, err)
	}
	waitGone(t, pid, time.Second)
}

// childPID follows the task's log until the fixture names its child.
func childPID(t *testing.T, tasks *runtime.TaskManager, id string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pid := 0
	found := fmt.Errorf("found")
	err := tasks.Logs(ctx, testScope, id, 0, true, func(c runtime.LogChunk) error {
		if s, ok := strings.CutPrefix(string(c.Data), "child "); ok {
			pid, _ = strconv.Atoi(strings.TrimSpace(s))
			return found
		}
		return nil
	})
	if err != found || pid == 0 {
		t.Fatalf("no child pid in the task log: %v", err)
	}
	return pid
}

func waitGone(t *testing.T, pid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for processAlive(pid) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if processAlive(pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("process %d outlived its cancelled task by %s", pid, within)
	}
}

// processAlive is false for a process that is gone or a zombie.
func processAlive(pid int) bool {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

func TestRuneBoundary(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 0}, {"abc", 3}, {"ab\xc3\xa9", 4}, {"ab\xc3", 2}, {"a\xe2\x82", 1},
		{"\xf0\x9f\x98", 0}, {"\xf0\x9f\x98\x80", 4}, {"a\x80\x80", 3}, {"a\xff", 2},
	} {
		if got := runeBoundary([]byte(tc.in)); got != tc.want {
			t.Errorf("runeBoundary(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// markedProcesses lists the processes whose environment carries one of the
// tasks' marker.
func markedProcesses(ids []string) []int {
	want := map[string]bool{}
	for _, id := range ids {
		want[runtime.TaskEnvVar+"="+id] = true
	}
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || !processAlive(pid) {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		for _, kv := range strings.Split(string(env), "\x00") {
			if want[kv] {
				out = append(out, pid)
			}
		}
	}
	return out
}

// TestFiftyTerminalTasksCancelledAtOnce runs 50 real terminal commands in
// the background, each a tree of processes, and cancels them together:
// every task is recorded cancelled and no process of any tree remains.
func TestFiftyTerminalTasksCancelledAtOnce(t *testing.T) {
	h := newHarness(t)
	turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	tasks, _, err := runtime.NewTaskManager(context.Background(), h.store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tasks.Close)
	turn.Background = &Background{Tasks: tasks}
	turn.MaxCalls = 100
	var ids []string
	for range 50 {
		out := turn.Call(context.Background(), ToolCall{ID: "bg", Name: "terminal",
			Args: []byte(`{"command":"echo $DEMIURGE_TASK_ID; sleep 600 & sleep 600 & wait","background":true}`)})
		id := taskIDRe.FindString(out.Views.Model.String())
		if !out.OK() || id == "" {
			t.Fatalf("background terminal call = %s %q", out.Status, out.Views.Model.String())
		}
		ids = append(ids, id)
	}
	for _, id := range ids {
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			if task, _ := tasks.Get(testScope, id); task.Streams["stdout"].Bytes > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never started", id)
			}
		}
	}
	for deadline := time.Now().Add(10 * time.Second); len(markedProcesses(ids)) < 150 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if n := len(markedProcesses(ids)); n < 150 {
		t.Fatalf("%d marked processes before the cancel, want 150 (a shell and two sleeps per task)", n)
	}
	done := make(chan runtime.Task, len(ids))
	for _, id := range ids {
		go func() {
			task, _ := tasks.Cancel(context.Background(), testScope, id)
			done <- task
		}()
	}
	for range ids {
		if task := <-done; task.State != runtime.TaskCancelled {
			t.Errorf("%s ended %s", task.ID, task.State)
		}
	}
	for _, id := range ids {
		task, err := h.store.Task(testScope, id)
		if err != nil || task.State != runtime.TaskCancelled || task.Ended.IsZero() {
			t.Errorf("%s recorded as %s (%v)", id, task.State, err)
		}
		if logs := logText(t, tasks, id); logs != "stdout: "+id+"\n" {
			t.Errorf("%s log = %q; want its own id (the marker reaches the command)", id, logs)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); len(markedProcesses(ids)) > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if left := markedProcesses(ids); len(left) > 0 {
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Fatalf("%d processes of cancelled tasks remain", len(left))
	}
}
