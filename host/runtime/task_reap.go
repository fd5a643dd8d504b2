package runtime

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// TaskEnvVar marks every process of a background task: the host adds it to
// the environment it builds for the task's command, and every descendant
// inherits it. After a crash it is how the next host finds the processes of
// a lost task that outlived their plugin.
const TaskEnvVar = "DEMIURGE_TASK_ID"

// procDir is /proc; a variable so tests can point at a fake tree.
var procDir = "/proc"

// treeGrace is how long a task's processes get to end after its work has
// returned (the plugin ends its tree: TERM, a short grace, KILL) before the
// host kills what is left.
var treeGrace = 3 * time.Second

// endTaskProcesses returns once no process marked with the task's id is
// left: it waits up to treeGrace for the plugin to end them, then kills
// the rest. A task's end is recorded only after this.
func endTaskProcesses(id string) {
	want := markers([]string{id})
	for deadline := time.Now().Add(treeGrace); len(markedPIDs(want)) > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	for round := 0; round < 10 && len(reapTaskProcesses([]string{id})) > 0; round++ {
		time.Sleep(10 * time.Millisecond)
	}
}

func markers(ids []string) map[string]bool {
	want := make(map[string]bool, len(ids))
	for _, id := range ids {
		want[TaskEnvVar+"="+id] = true
	}
	return want
}

// markedPIDs lists the live processes of this user marked with one of
// want (zombies have an empty environment and are not listed).
func markedPIDs(want map[string]bool) []int {
	entries, err := os.ReadDir(procDir)
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err == nil && pid != self && marked(pid, want) {
			out = append(out, pid)
		}
	}
	return out
}

// reapTaskProcesses kills (SIGKILL) every process of this user whose
// environment names one of ids, and returns their PIDs. Each process is
// pinned by a pidfd before its environment is read again and it is
// signalled, so a PID reused in between is never killed.
func reapTaskProcesses(ids []string) []int {
	if len(ids) == 0 {
		return nil
	}
	want := markers(ids)
	var killed []int
	for _, pid := range markedPIDs(want) {
		p, err := os.FindProcess(pid) // holds a pidfd on Linux
		if err != nil {
			continue
		}
		if marked(pid, want) && p.Signal(syscall.SIGKILL) == nil {
			killed = append(killed, pid)
		}
		p.Release()
	}
	return killed
}

// marked reports whether pid's environment holds one of the wanted
// entries. Another user's processes cannot be read and are never marked.
func marked(pid int, want map[string]bool) bool {
	env, err := os.ReadFile(filepath.Join(procDir, strconv.Itoa(pid), "environ"))
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if want[string(kv)] {
			return true
		}
	}
	return false
}
