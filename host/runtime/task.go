package runtime

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	berrors "go.etcd.io/bbolt/errors"
)

// TaskState is where a background task is in its life.
type TaskState string

const (
	TaskQueued    TaskState = "queued"
	TaskRunning   TaskState = "running"
	TaskSucceeded TaskState = "succeeded"
	TaskFailed    TaskState = "failed"
	TaskCancelled TaskState = "cancelled"
	// TaskLost is a task that was running when its host died: nobody saw
	// it end.
	TaskLost TaskState = "lost"
)

// Terminal reports whether the state is final.
func (s TaskState) Terminal() bool {
	switch s {
	case TaskSucceeded, TaskFailed, TaskCancelled, TaskLost:
		return true
	}
	return false
}

// Exit reasons the task machinery sets itself; a tool reports its own
// (exited, timeout, signal, ...) in its result.
const (
	ExitReasonCancelled = "cancelled"
	ExitReasonHostClose = "host_closed"
	ExitReasonLost      = "host_crashed"
	ExitReasonError     = "error"
	ExitReasonLogFailed = "log_persistence_failed"
)

// TailChars is how many characters of each stream a task keeps as its tail.
const TailChars = 12000

// StreamStats describe one output stream of a task: its last TailChars
// characters and what the whole stream amounted to.
type StreamStats struct {
	Tail  string `json:"tail"`
	Bytes int64  `json:"bytes"`
	Chars int64  `json:"chars"`
	// Truncated is true when Tail does not hold the whole stream.
	Truncated bool `json:"truncated"`
}

// Task is the durable record of one background task. Principal and Session
// own it: every query is scoped to them.
type Task struct {
	ID        string `json:"id"`
	Principal string `json:"principal"`
	Session   string `json:"session"`
	Tool      string `json:"tool"`
	CallID    string `json:"call_id,omitempty"`
	Summary   string `json:"summary"`
	// Sandbox is the OS sandbox mode enforced for the task ("off": none).
	Sandbox string    `json:"sandbox,omitempty"`
	State   TaskState `json:"state"`
	// ReturnCode is the process's exit status; nil when none was seen
	// (cancelled, lost, or the tool never started a process).
	ReturnCode *int   `json:"return_code"`
	ExitReason string `json:"exit_reason,omitempty"`
	// Result is the tool's final content, redacted and bounded.
	Result  string    `json:"result,omitempty"`
	Created time.Time `json:"created"`
	Started time.Time `json:"started,omitzero"`
	Ended   time.Time `json:"ended,omitzero"`
	// ResultRef points at the task's output artifact: the opaque session
	// root and the path under it, never a host path.
	ResultRef string                 `json:"result_ref,omitempty"`
	Artifacts []string               `json:"artifacts,omitempty"`
	Streams   map[string]StreamStats `json:"streams,omitempty"`
	// LogChunks is how many log chunks the task wrote; the oldest may have
	// been dropped from task_logs (see MaxLogChunks).
	LogChunks uint64 `json:"log_chunks"`
	// Agent is an agent.spawn task's operator-only metadata (the
	// requested child controls, the resolved child pipeline): never in a
	// model's task payload.
	Agent json.RawMessage `json:"agent,omitempty"`
	// Network lists the connections a network-mode task made through the
	// host's egress proxy (host, port, address dialled, bytes each way,
	// verdict), as the dispatcher recorded them when it ended.
	Network json.RawMessage `json:"network,omitempty"`
}

// TaskScope is who asks about tasks. A task outside the scope answers
// exactly like one that does not exist. An empty principal sees nothing;
// AllSessions is the operator's explicit view of all of a principal's
// sessions.
type TaskScope struct {
	Principal   string
	Session     string
	AllSessions bool
}

func (sc TaskScope) owns(t *Task) bool {
	if sc.Principal == "" || t.Principal != sc.Principal {
		return false
	}
	return sc.AllSessions || (sc.Session != "" && t.Session == sc.Session)
}

// ErrTaskNotFound is the one answer for a task id that does not exist or is
// not in the asker's scope.
var ErrTaskNotFound = errors.New("no such task")

func notFound(id string) error {
	return fmt.Errorf("task %q: %w; `tasks list` shows the tasks you can see", shorten(id, 64), ErrTaskNotFound)
}

// IsLocked reports whether err says another process holds the store.
func IsLocked(err error) bool { return errors.Is(err, berrors.ErrTimeout) }

func newTaskID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return "task_" + hex.EncodeToString(b[:])
}

// shorten bounds text that came from outside before it is echoed.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
