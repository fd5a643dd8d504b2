package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// flushEvery is how long output may wait in memory before it is written to
// task_logs; maxPending is how much may wait before the writer of the
// output waits for the write itself.
const (
	flushEvery = 100 * time.Millisecond
	maxPending = 256 << 10
	// maxStreams bounds the distinct stream names one task may use.
	maxStreams = 8
)

// ErrManagerClosed is returned by Start once the manager is closing.
var ErrManagerClosed = errors.New("the task manager is closed: the host is shutting down")

// TaskSpec is what a new task is and who owns it.
type TaskSpec struct {
	Principal, Session string
	Tool, CallID       string
	// Summary is a short, already redacted description (the command).
	Summary string
	// Sandbox is the OS sandbox mode the task's command runs under ("off"
	// when unconfined); the helper refuses to start rather than do less.
	Sandbox string
	// Agent is an agent.spawn task's operator-only metadata.
	Agent json.RawMessage
	// Running says the work starts at once: the task is recorded running
	// in the commit that creates it, saving the separate start commit on
	// the way to its work (a child agent's first model request).
	Running bool
	// Sessions are session records written in that same commit, each
	// unless its id is recorded already (RecordSession): a child agent's
	// own session.
	Sessions []SessionRecord
}

// TaskOutcome is how a task's work ended, as its runner saw it.
type TaskOutcome struct {
	Failed     bool
	ReturnCode *int
	ExitReason string
	// Result is the final content, already redacted.
	Result string
	// Streams, when the tool reported them, replace the statistics
	// counted from the output the host saw.
	Streams map[string]StreamStats
	// Agent, when set, replaces the task's operator-only agent metadata.
	Agent json.RawMessage
	// Network, when set, is the task's connections through the egress
	// proxy (Task.Network).
	Network json.RawMessage
}

// TaskRun does a task's work. It must return soon after ctx is cancelled.
type TaskRun func(ctx context.Context, out *TaskOutput) TaskOutcome

// TaskManager runs background tasks: it records them, stores their output,
// seals and persists their end before publishing it, and answers queries
// scoped to their owner. Every method is safe for concurrent use.
type TaskManager struct {
	store *Store
	base  context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup

	mu         sync.Mutex
	live       map[string]*liveTask
	closed     bool
	onComplete func(Task)
	reaperExe  string
	reaper     *Reaper
	// beforeFinish, set only by tests, runs between a task's concluded
	// outcome and the write that makes it durable.
	beforeFinish func(Task)
}

// UseReaper has the binary exe (run with ReaperArg) follow the running
// tasks, so that their processes are ended if this host dies without
// ending them. The reaper starts with the first task; a host that cannot
// start it still runs its tasks.
func (m *TaskManager) UseReaper(exe string) {
	m.mu.Lock()
	m.reaperExe = exe
	m.mu.Unlock()
}

// startedReaper returns the reaper, starting it on first use.
func (m *TaskManager) startedReaper() *Reaper {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reaper == nil && m.reaperExe != "" && !m.closed {
		r, err := StartReaper(m.reaperExe)
		if err != nil {
			m.reaperExe = "" // tried once; not again for every task
			return nil
		}
		m.reaper = r
	}
	return m.reaper
}

// NewTaskManager starts a manager over store. Tasks that a crashed host
// left queued or running are marked lost first and returned.
func NewTaskManager(ctx context.Context, store *Store) (*TaskManager, []Task, error) {
	lost, err := store.RecoverTasks(ctx)
	if err != nil {
		return nil, nil, err
	}
	// Their plugin died with their host; processes that outlived it are
	// ended now.
	ids := make([]string, len(lost))
	for i, t := range lost {
		ids[i] = t.ID
	}
	reapTaskProcesses(ids)
	base, stop := context.WithCancel(context.Background())
	return &TaskManager{store: store, base: base, stop: stop, live: map[string]*liveTask{}}, lost, nil
}

// OnComplete sets fn to be called once per task after its terminal state
// is durable (the task's completion is published).
func (m *TaskManager) OnComplete(fn func(Task)) {
	m.mu.Lock()
	m.onComplete = fn
	m.mu.Unlock()
}

// liveTask is a task this process runs.
type liveTask struct {
	// id and owner never change; they are read without mu.
	id     string
	owner  Task
	cancel context.CancelFunc
	done   chan struct{} // closed when the end is durable: completion

	mu      sync.Mutex
	task    Task
	streams map[string]*streamAcc
	// sealed is the terminal state decided before the work returned
	// (cancel, log failure); once set it is never changed.
	sealed     TaskState
	sealReason string
	sealDetail string
	// concluded says the work's outcome is decided but not yet durable:
	// no seal wins after it, and queries do not see the outcome yet (an
	// end is published once written: a caller that saw it terminal
	// could stop waiting before the completion hook had run).
	concluded  bool
	finished   bool
	seq        uint64
	pending    []LogChunk
	pendingLen int

	flushMu sync.Mutex
}

// seal decides the task's end before its work has returned, and cancels
// the work. The first seal wins; it reports whether this one did.
func (lt *liveTask) seal(state TaskState, reason, detail string) bool {
	lt.mu.Lock()
	won := lt.sealed == "" && !lt.concluded && !lt.finished
	if won {
		lt.sealed, lt.sealReason, lt.sealDetail = state, reason, detail
	}
	lt.mu.Unlock()
	lt.cancel()
	return won
}

func (lt *liveTask) snapshot() Task {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.snapshotLocked()
}

func (lt *liveTask) snapshotLocked() Task {
	t := lt.task
	if lt.finished {
		return t
	}
	if lt.sealed != "" {
		t.State, t.ExitReason = lt.sealed, lt.sealReason
	}
	t.LogChunks = lt.seq
	if len(lt.streams) > 0 {
		t.Streams = make(map[string]StreamStats, len(lt.streams))
		for name, acc := range lt.streams {
			t.Streams[name] = acc.stats()
		}
	}
	t.Artifacts = slices.Clone(t.Artifacts)
	return t
}

// Start records a new task durably, starts run in a goroutine the manager
// owns, and returns the task at once: queued, or running when spec.Running
// says so (then the record is written running). ctx bounds only the record.
func (m *TaskManager) Start(ctx context.Context, spec TaskSpec, run TaskRun) (Task, error) {
	if spec.Principal == "" || spec.Session == "" {
		return Task{}, errors.New("a task needs an owning principal and session")
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return Task{}, ErrManagerClosed
	}
	m.wg.Add(1)
	m.mu.Unlock()
	t := Task{
		ID: newTaskID(), Principal: spec.Principal, Session: spec.Session, Tool: spec.Tool,
		CallID: spec.CallID, Summary: spec.Summary, Sandbox: spec.Sandbox, State: TaskQueued, Created: time.Now().UTC(), Agent: spec.Agent,
	}
	if spec.Running {
		t.State, t.Started = TaskRunning, t.Created
	}
	if err := m.store.createTask(ctx, t, spec.Sessions...); err != nil {
		m.wg.Done()
		return Task{}, err
	}
	tctx, cancel := context.WithCancel(m.base)
	lt := &liveTask{id: t.ID, owner: Task{Principal: t.Principal, Session: t.Session}, cancel: cancel, done: make(chan struct{}), task: t, streams: map[string]*streamAcc{}}
	m.mu.Lock()
	m.live[t.ID] = lt
	closed := m.closed
	m.mu.Unlock()
	if closed {
		// Close has already swept the live tasks: this one never runs.
		lt.seal(TaskCancelled, ExitReasonHostClose, "")
	}
	go m.runTask(tctx, lt, run)
	return t, nil
}

func (m *TaskManager) runTask(ctx context.Context, lt *liveTask, run TaskRun) {
	defer m.wg.Done()
	defer lt.cancel()
	var out TaskOutcome
	lt.mu.Lock()
	sealed := lt.sealed != ""
	recordedRunning, started := lt.task.State == TaskRunning, lt.task.Started
	lt.mu.Unlock()
	if !sealed {
		var err error
		if !recordedRunning {
			started = time.Now().UTC()
			err = m.store.markRunning(context.Background(), lt.id, started)
		}
		if err != nil {
			out = TaskOutcome{Failed: true, ExitReason: ExitReasonError, Result: fmt.Sprintf("the task's start could not be recorded: %v", err)}
		} else {
			lt.mu.Lock()
			lt.task.State, lt.task.Started = TaskRunning, started
			lt.mu.Unlock()
			reaper := m.startedReaper()
			if reaper != nil {
				reaper.track(lt.id)
			}
			stop, stopped := make(chan struct{}), make(chan struct{})
			go m.flushLoop(lt, stop, stopped)
			out = run(ctx, &TaskOutput{m: m, lt: lt})
			close(stop)
			<-stopped
			endTaskProcesses(lt.id)
			if reaper != nil {
				reaper.untrack(lt.id) // the work has returned: its tree is gone
			}
		}
	}
	m.flush(lt) // the rest; a failure seals the task as failed
	final := lt.conclude(out)
	if m.beforeFinish != nil {
		m.beforeFinish(final)
	}
	written, err := m.store.finishTask(context.Background(), final)
	switch {
	case err != nil:
		// Nothing durable says how it ended: publish the failure, and
		// keep the task live so queries see it rather than the stale
		// running record.
		if final.ExitReason != ExitReasonLogFailed {
			final.ExitReason = ExitReasonError
		}
		final.State = TaskFailed
		final.Result = fmt.Sprintf("the task's end could not be recorded: %v", err)
	case !written:
		if cur, gerr := m.store.Task(TaskScope{Principal: final.Principal, Session: final.Session}, final.ID); gerr == nil {
			final = cur
		}
	}
	lt.mu.Lock()
	lt.task, lt.finished = final, true
	lt.mu.Unlock()
	close(lt.done)
	m.mu.Lock()
	if err == nil {
		delete(m.live, final.ID)
	}
	fn := m.onComplete
	m.mu.Unlock()
	if fn != nil {
		fn(final)
	}
}

// conclude fixes the task's terminal record from its work's outcome; a
// seal decided earlier wins over what the work reported.
func (lt *liveTask) conclude(out TaskOutcome) Task {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	t := lt.snapshotLocked()
	t.Ended = time.Now().UTC()
	t.ReturnCode, t.Result = out.ReturnCode, out.Result
	if out.Agent != nil {
		t.Agent = out.Agent
	}
	if out.Network != nil {
		t.Network = out.Network
	}
	if len(out.Streams) > 0 {
		if t.Streams == nil {
			t.Streams = map[string]StreamStats{}
		}
		maps.Copy(t.Streams, out.Streams)
	}
	switch {
	case lt.sealed != "":
		t.State, t.ExitReason = lt.sealed, lt.sealReason
		if lt.sealDetail != "" {
			t.Result = lt.sealDetail
		}
	case out.Failed:
		t.State, t.ExitReason = TaskFailed, out.ExitReason
	default:
		t.State, t.ExitReason = TaskSucceeded, out.ExitReason
	}
	if t.ExitReason == "" && t.State == TaskFailed {
		t.ExitReason = ExitReasonError
	}
	lt.concluded = true
	return t
}

func (m *TaskManager) flushLoop(lt *liveTask, stop <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	tick := time.NewTicker(flushEvery)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
			m.flush(lt)
		}
	}
}

// flush writes the output waiting in memory. If it cannot, the task is
// sealed as failed and its work cancelled: output that cannot be kept is
// not produced further.
func (m *TaskManager) flush(lt *liveTask) error {
	lt.flushMu.Lock()
	defer lt.flushMu.Unlock()
	lt.mu.Lock()
	batch := lt.pending
	lt.pending, lt.pendingLen = nil, 0
	lt.mu.Unlock()
	if err := m.store.appendLogs(context.Background(), lt.id, batch); err != nil {
		lt.seal(TaskFailed, ExitReasonLogFailed, err.Error())
		return err
	}
	return nil
}

// CancelAll cancels every running task through the cancel path with reason
// and waits for all of them to be recorded.
func (m *TaskManager) CancelAll(reason string) {
	m.mu.Lock()
	lives := slices.Collect(maps.Values(m.live))
	m.mu.Unlock()
	for _, lt := range lives {
		lt.seal(TaskCancelled, reason, "")
	}
	for _, lt := range lives {
		<-lt.done
	}
}

// Close refuses new tasks, cancels the running ones through the cancel
// path (recorded as cancelled, reason host_closed) and waits until each
// end is durable. The store stays open: its owner closes it after.
func (m *TaskManager) Close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	m.CancelAll(ExitReasonHostClose)
	m.wg.Wait()
	m.stop()
	m.mu.Lock()
	r := m.reaper
	m.reaper = nil
	m.mu.Unlock()
	if r != nil {
		r.Close() // every task is untracked: it has nothing to do
	}
}
