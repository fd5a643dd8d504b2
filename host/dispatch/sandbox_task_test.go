package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
)

// TestTaskRecordCarriesTheEnforcedMode: a background terminal command's
// task record names the sandbox mode it ran under, as `tasks show`
// prints it: the session's mode, network when approved for it, off when
// the host configured no sandbox.
func TestTaskRecordCarriesTheEnforcedMode(t *testing.T) {
	h := newHarness(t)
	helper := buildSandboxHelper(t)
	for _, c := range []struct {
		name string
		cfg  sandboxing.Config
		args string
		want string
	}{
		{"workspace-write", sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: helper}, `{"command":"echo hi","background":true}`, "workspace-write"},
		{"network", sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: helper}, `{"command":"echo hi","background":true,"network":true}`, "network"},
		{"none configured", sandboxing.Config{}, `{"command":"echo hi","background":true}`, "off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
			tasks, _, err := runtime.NewTaskManager(context.Background(), h.store)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(tasks.Close)
			turn.Background = &Background{Tasks: tasks}
			turn.Sandbox = c.cfg
			out := turn.Call(context.Background(), ToolCall{ID: "bg-" + c.name, Name: "terminal", Args: []byte(c.args)})
			id := taskIDRe.FindString(out.Views.Model.String())
			if !out.OK() || id == "" {
				t.Fatalf("%s %s", out.Status, out.Views.Model.String())
			}
			task, timedOut, err := tasks.Wait(context.Background(), testScope, id, 20*time.Second)
			if err != nil || timedOut {
				t.Fatalf("wait: %v, timed out %v", err, timedOut)
			}
			if task.State != runtime.TaskSucceeded || task.Sandbox != c.want {
				t.Fatalf("task state %s sandbox %q, want succeeded under %q: %+v", task.State, task.Sandbox, c.want, task)
			}
		})
	}
}

// TestNetworkTaskRecordsItsConnections: a background network-mode
// command's task record lists what it reached through the egress proxy
// (tasks show prints it), and each connection is an audit event of the
// call that started it.
func TestNetworkTaskRecordsItsConnections(t *testing.T) {
	h := newHarness(t)
	helper := buildSandboxHelper(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "task-body") }))
	t.Cleanup(srv.Close)
	addr := netip.MustParseAddrPort(strings.TrimPrefix(srv.URL, "http://"))
	turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	tasks, _, err := runtime.NewTaskManager(context.Background(), h.store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tasks.Close)
	turn.Background = &Background{Tasks: tasks}
	turn.Sandbox = sandboxing.Config{Mode: sandbox.WorkspaceWrite, Helper: helper, Egress: sandboxing.Egress{Allow: []netip.AddrPort{addr}}}
	cmd := fmt.Sprintf("NO_PROXY= no_proxy= curl -sS --max-time 10 %s/x; NO_PROXY= no_proxy= curl -s --max-time 10 http://127.0.0.1:1/ || true", srv.URL)
	args, _ := json.Marshal(map[string]any{"command": cmd, "background": true, "network": true})
	out := turn.Call(context.Background(), ToolCall{ID: "bg-net", Name: "terminal", Args: args})
	id := taskIDRe.FindString(out.Views.Model.String())
	if !out.OK() || id == "" {
		t.Fatalf("%s %s", out.Status, out.Views.Model.String())
	}
	task, timedOut, err := tasks.Wait(context.Background(), testScope, id, 20*time.Second)
	if err != nil || timedOut {
		t.Fatalf("wait: %v, timed out %v", err, timedOut)
	}
	var conns []map[string]any
	if err := json.Unmarshal(task.Network, &conns); err != nil || len(conns) != 2 {
		t.Fatalf("task network record: %v %s", err, task.Network)
	}
	if conns[0]["verdict"] != "allowed" || conns[0]["addr"] != addr.String() || conns[0]["bytes_received"].(float64) != float64(len("task-body")) {
		t.Fatalf("the allowed connection: %v", conns[0])
	}
	if conns[1]["verdict"] != "refused" || conns[1]["port"].(float64) != 1 {
		t.Fatalf("the refused connection: %v", conns[1])
	}
	evs, _ := h.store.Events(runtime.EventQuery{Kind: EventKindNetConnection})
	if len(evs) != 2 || evs[0].CallID != "bg-net" || evs[1].CallID != "bg-net" {
		t.Fatalf("connection events: %+v", evs)
	}
}
