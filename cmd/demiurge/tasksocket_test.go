package main

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
)

// TestAnotherHostsCommandCannotCancel is the attack of issue 11 with the
// real binary: a command that a second host runs (approved) calls
// `demiurge tasks cancel` against the first host's state directory. The
// first host's socket refuses it, the task keeps running, and the refusal
// is audited with who asked. The operator's own `demiurge tasks` still
// works (TestTasksOfARunningHostFromAnotherProcess).
func TestAnotherHostsCommandCannotCancel(t *testing.T) {
	e := newTaskEnv(t)
	owner, id, _ := e.startBackground(t)
	attack := e.bin + " --state " + e.state + " tasks cancel " + id + " --json"
	args, _ := json.Marshal(map[string]string{"command": attack + "; echo \"exit $?\""})
	other := t.TempDir()
	// --sandbox off: under the OS sandbox the command cannot even run the
	// demiurge binary (outside what it may read); this test is about the
	// socket's own check, which must hold without the sandbox.
	cmd := exec.Command(e.bin, "--state", other, "--plugin-dir", e.builtin, "--workspace", e.ws, "--approve", "allow:terminal",
		"--sandbox", "off", "tools", "call", "terminal", string(args))
	cmd.Env = append(cmd.Environ(), "HOME="+e.home)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the second host's terminal call: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "does not answer commands or tools a demiurge runs") || strings.Contains(string(out), `"state": "cancelled"`) {
		t.Fatalf("the command was not refused by the task socket:\n%s", out)
	}
	list, _, err := e.run(t, "tasks", "show", id, "--json")
	if err != nil || !strings.Contains(list, `"state": "running"`) {
		t.Fatalf("after the attack the task is %s (%v)", list, err)
	}
	// The owner's audit says who was refused (read once it has exited).
	if _, _, err := e.run(t, "tasks", "cancel", id); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- owner.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the owner did not end after its only task was cancelled")
	}
	store, err := runtime.Open(e.state + "/demiurge.db")
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	evs, _ := store.Events(runtime.EventQuery{Kind: runtime.EventKindTaskSocket})
	var refused int
	for _, ev := range evs {
		// `tasks cancel` reads the task first (to say when it had already
		// ended), so the refusal may come at that read: either op counts.
		if strings.Contains(string(ev.Data), `"outcome":"refused"`) && strings.Contains(string(ev.Data), "descends from") {
			refused++
		}
	}
	if refused != 1 {
		for _, ev := range evs {
			t.Logf("%s", ev.Data)
		}
		t.Fatalf("%d refused events in %d task.socket events", refused, len(evs))
	}
}
