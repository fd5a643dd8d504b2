package toolhost

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/runtime"
)

// hostTasks is the host's background task manager, made on first use.
type hostTasks struct {
	once    sync.Once
	mu      sync.Mutex
	manager *runtime.TaskManager
	server  *runtime.TaskServer
	lost    []runtime.Task
	err     error
	closed  bool
	// completions outlive each turn: a task end one turn's yield_until
	// returned is consumed for every later turn.
	completions dispatch.Completions
	listeners   taskListeners
}

// Tasks returns the host's task manager. Making it marks the tasks that a
// crashed host left queued or running as lost (see LostTasks).
func (h *Host) Tasks() (*runtime.TaskManager, error) {
	h.tasks.once.Do(func() {
		store, err := h.Store()
		if err != nil {
			h.tasks.err = err
			return
		}
		m, lost, err := runtime.NewTaskManager(context.Background(), store)
		h.tasks.mu.Lock()
		defer h.tasks.mu.Unlock()
		if h.tasks.closed && m != nil {
			m.Close()
			h.tasks.err = runtime.ErrManagerClosed
			return
		}
		h.tasks.manager, h.tasks.lost, h.tasks.err = m, lost, err
		if err == nil {
			m.OnComplete(h.tasks.listeners.notify)
		}
		if err == nil && TaskReaperExecutable != nil {
			if exe, err := TaskReaperExecutable(); err == nil {
				m.UseReaper(exe)
			}
		}
		if err == nil && ServeTaskSocket {
			// Best effort: without it, other processes read the record
			// once this one has exited.
			h.tasks.server, _ = m.Serve(TaskSocketPath(h.StateDir), h.rootAuthority.Principal)
		}
	})
	return h.tasks.manager, h.tasks.err
}

// LostTasks are the tasks found unfinished, and marked lost, when the task
// manager was made.
func (h *Host) LostTasks() []runtime.Task { return h.tasks.lost }

// RunningTasks is how many background tasks this host runs now; it does
// not open the store to find out.
func (h *Host) RunningTasks() int {
	h.tasks.mu.Lock()
	m := h.tasks.manager
	h.tasks.mu.Unlock()
	if m == nil {
		return 0
	}
	return m.Running()
}

// TaskScope is the current session's: what its model and its interactive
// session may see of tasks.
func (h *Host) TaskScope() runtime.TaskScope { return h.Session().TaskScope() }

// OperatorTaskScope is the operator's explicit view of every session of
// this principal, for the `demiurge tasks` command.
func (h *Host) OperatorTaskScope() runtime.TaskScope {
	return runtime.TaskScope{Principal: h.rootAuthority.Principal, AllSessions: true}
}

// background is what a turn needs to run background calls.
func (h *Host) background() (*dispatch.Background, error) {
	m, err := h.Tasks()
	if err != nil {
		return nil, err
	}
	return &dispatch.Background{Tasks: m, Secrets: h.hostCredentials, Completions: &h.tasks.completions}, nil
}

// cancelSessionTasks cancels the running background tasks of a session
// whose run has ended for good (a delegated child's): no one can resume it
// to control them. It waits for each end to be recorded, up to a bound.
func (h *Host) cancelSessionTasks(scope runtime.TaskScope) {
	h.tasks.mu.Lock()
	m := h.tasks.manager
	h.tasks.mu.Unlock()
	if m == nil {
		return
	}
	ts, err := m.List(scope)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, t := range ts {
		if !t.State.Terminal() {
			_, _ = m.Cancel(ctx, scope, t.ID)
		}
	}
}

// closeTasks cancels running tasks through the cancel path and waits until
// each end is recorded; it runs before plugins and store are closed.
func (h *Host) closeTasks() {
	h.tasks.mu.Lock()
	h.tasks.closed = true
	m := h.tasks.manager
	h.tasks.mu.Unlock()
	if h.tasks.server != nil {
		h.tasks.server.Close()
	}
	if m != nil {
		m.Close()
	}
}

// ServeTaskSocket has the host answer `demiurge tasks` of other processes
// about its live tasks on TaskSocketPath; the CLI sets it.
var ServeTaskSocket bool

// TaskSocketPath is where the host that holds the store answers about its
// live tasks.
func TaskSocketPath(stateDir string) string {
	return filepath.Join(stateDir, "runtime", "tasks.sock")
}

// TaskReaperExecutable names the binary that runs as the task reaper
// (given runtime.ReaperArg); the CLI sets it to itself. Nil starts no
// reaper: a crashed host's task processes are then ended only when the
// next host marks the tasks lost.
var TaskReaperExecutable func() (string, error)

// hostCredentials are the credentials the host holds (by variable name):
// its environment's secret-named variables (hostSecrets) and, whatever
// their names, the variables the core names as its model's key and the
// active packages name as their secrets. They never reach a plugin, and
// every result, live output, approval text and task output is redacted
// with them in case a command found a copy (dispatch.HostSecrets).
// A core host (a child of another core, an evolver) holds its base's
// too: the process holds the parent core's model key whichever core a
// child runs, and the child runs its root's model.
func (h *Host) hostCredentials() map[string]string {
	out := map[string]string{}
	if h.base != nil && h.base != h {
		maps.Copy(out, h.base.hostCredentials())
	}
	for k, v := range hostSecrets() {
		if credentialValue(k, v) {
			out[k] = v
		}
	}
	named := func(name string) {
		if v := os.Getenv(name); name != "" && v != "" {
			out[name] = v
		}
	}
	if h.Core != nil && h.Core.Model != nil {
		named(h.Core.Model.APIKeyEnv)
	}
	if h.Packages != nil {
		for _, p := range h.Packages.Packages {
			for _, s := range p.Secrets {
				named(s.Env)
			}
		}
	}
	return out
}

// credentialValue reports whether a variable of the host's environment
// whose name looks like a credential's holds one. Some names only look
// so: PWD and OLDPWD (a "pwd" is a password elsewhere) are the shell's
// directories, and a value that is an existing absolute path (a socket,
// a file), a number or a boolean is no credential; redacting it would
// shred every result (every path under the working directory, every
// "true"). The variables the core or a package name as credentials are
// taken as they are (hostCredentials).
func credentialValue(name, v string) bool {
	switch name {
	case "PWD", "OLDPWD":
		return false
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off":
		return false
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		return false
	}
	if filepath.IsAbs(v) {
		if _, err := os.Lstat(v); err == nil {
			return false
		}
	}
	return true
}

// hostSecrets are the credentials in the host's own environment (by
// variable name): the variables whose names say they hold one.
var hostSecrets = sync.OnceValue(func() map[string]string {
	env := map[string]any{}
	for _, kv := range os.Environ() {
		if k, v, ok := strings.Cut(kv, "="); ok && v != "" {
			env[k] = v
		}
	}
	out := map[string]string{}
	for _, s := range redact.Discover(env, nil) {
		out[s.Target] = s.Value
	}
	return out
})
