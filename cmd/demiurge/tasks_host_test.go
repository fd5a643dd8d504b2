package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/toolhost"
)

// TestTasksOnTheHostSocket: `demiurge tasks` reaches the host's live
// tasks over the host socket, the one path (the host serves no task
// socket): list, show, logs and cancel of a running background command
// that a one-shot call started in the host.
func TestTasksOnTheHostSocket(t *testing.T) {
	e := newHostEnv(t)
	out, stderr, err := e.runHost(t, "--approve", "allow:terminal", "tools", "call", "terminal", `{"command":"echo $((6*7))-started; sleep 60","background":true}`)
	if err != nil {
		t.Fatalf("%v\n%s%s", err, out, stderr)
	}
	id := regexp.MustCompile(`task_[0-9a-f]{20}`).FindString(out + stderr)
	if id == "" {
		t.Fatalf("no task id in %s%s", out, stderr)
	}
	e.hostPID(t)
	if _, err := os.Stat(toolhost.TaskSocketPath(e.state)); !os.IsNotExist(err) {
		t.Fatalf("the host serves a task socket too (%v): not one path", err)
	}
	if out, stderr, err := e.runHost(t, "tasks", "list"); err != nil || !strings.Contains(out, id) || !strings.Contains(out, "running") {
		t.Fatalf("tasks list through the host: %v\n%s%s", err, out, stderr)
	}
	// The command runs in the background: its first line may not be
	// there yet when the call returns, so the logs are read until it is.
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		out, stderr, err := e.runHost(t, "tasks", "logs", id)
		if err == nil && strings.Contains(out, "42-started") {
			break
		}
		if err != nil || time.Now().After(deadline) {
			t.Fatalf("tasks logs through the host: %v\n%s%s", err, out, stderr)
		}
	}
	if out, stderr, err := e.runHost(t, "tasks", "cancel", id); err != nil {
		t.Fatalf("tasks cancel through the host: %v\n%s%s", err, out, stderr)
	}
	if out, stderr, err := e.runHost(t, "tasks", "show", id); err != nil || !strings.Contains(out, "cancel") {
		t.Fatalf("tasks show after cancel: %v\n%s%s", err, out, stderr)
	}
}
