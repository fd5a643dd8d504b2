package terminal

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"

	"demiurge.dev/shared/pindir"
	"demiurge.dev/shared/redact"
	"demiurge.dev/shared/sandbox"
)

// Exit reasons.
const (
	ReasonExited    = "exited"    // the shell exited on its own
	ReasonSignaled  = "signaled"  // the shell was killed by a signal we did not send
	ReasonTimeout   = "timeout"   // the call's timeout passed
	ReasonCancelled = "cancelled" // the call was cancelled, or the plugin stopped
	ReasonExpired   = "expired"   // a secret binding expired
	ReasonFailed    = "failed"    // the output could not be drained or stored
)

// DefaultGrace is how long a tree has between TERM and KILL.
const DefaultGrace = 2 * time.Second

// drainWait bounds the wait for the pipes to end once the group is gone.
const drainWait = 2 * time.Second

// Emitter takes what a running command reports to the host. Calls come
// from one goroutine at a time.
type Emitter interface {
	Output(stream string, data []byte) error
	Artifact(path, mediaType string, size int64, sha256 string) error
}

// SpawnReporter is an Emitter that can also tell the host about a process
// group as soon as it exists (sdk.Context is one), so that the host can end
// the group should this plugin and its reaper both die.
type SpawnReporter interface {
	Spawned(pgid int, marker string) error
}

// Request is one command to run.
type Request struct {
	Command string
	// Dir is the absolute, already checked working directory, symlinks
	// resolved. It is opened once and the command starts in what was
	// opened (see shared/pindir).
	Dir string
	// Root, when set, is the workspace root (symlinks resolved) that Dir
	// must lie beneath when it is opened.
	Root string
	// Env is the child's whole environment, bound secrets included.
	Env []string
	// Secrets (target -> value) are redacted from both streams.
	Secrets map[string]string
	// Redact are more values to redact from both streams (the ones the
	// host found in the call's arguments); they are never set in Env.
	Redact  []redact.Secret
	Timeout time.Duration
	// ExpireAt, when set, ends the tree like a timeout, as expired.
	ExpireAt     time.Time
	ArtifactRoot string
	// OutputCap is the most bytes of each stream the artifact keeps; past
	// it bytes are counted and dropped while the pipe keeps draining.
	// Zero means DefaultOutputCap.
	OutputCap int64

	Emit Emitter
	// Sandbox, when set, is the OS sandbox the command runs under, through
	// the helper at SandboxHelper (see sandbox.go).
	Sandbox       *sandbox.Policy
	SandboxHelper string
}

// DefaultOutputCap bounds one stream's artifact when the operator set
// nothing.
const DefaultOutputCap = 256 << 20

// Result is how a command ended and what it printed.
type Result struct {
	ExitCode   int    `json:"exit_code"`
	ExitReason string `json:"exit_reason"`
	// Signal names the signal that ended the shell, when one did.
	Signal     string       `json:"signal,omitempty"`
	DurationMS int64        `json:"duration_ms"`
	Stdout     StreamResult `json:"stdout"`
	Stderr     StreamResult `json:"stderr"`
	Spawn      Spawn        `json:"spawn"`
	// Sandbox is the sandbox mode that was enforced ("off" when none).
	Sandbox string `json:"sandbox"`
	// Error says why the call failed although the command ran (artifact
	// or drain failure).
	Error string `json:"error,omitempty"`
}

// ErrShuttingDown is returned by Run once Shutdown has begun.
var ErrShuttingDown = errors.New("the terminal is shutting down; no new command starts")

// Runner starts commands and owns their process trees until they are gone.
type Runner struct {
	// Grace is the time between TERM and KILL; zero means DefaultGrace.
	Grace time.Duration
	// ReaperExe, when set, is started once as the reaper (see
	// MaybeRunReaper): the binary of the running plugin, so that trees die
	// with the plugin even when it is killed outright.
	ReaperExe string

	mu     sync.Mutex
	live   map[string]*process
	closed bool
	reaper *reaper
}

// NewRunner makes a Runner with no live commands.
func NewRunner() *Runner { return &Runner{live: map[string]*process{}} }

func (r *Runner) grace() time.Duration {
	if r.Grace > 0 {
		return r.Grace
	}
	return DefaultGrace
}

// Live is the number of commands whose trees are not yet gone.
func (r *Runner) Live() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.live)
}

// Shutdown ends every live tree (TERM, grace, KILL, all at once) and makes
// later Runs fail. It returns when every tree is gone.
func (r *Runner) Shutdown() {
	r.mu.Lock()
	r.closed = true
	procs := make([]*process, 0, len(r.live))
	for _, p := range r.live {
		procs = append(procs, p)
	}
	r.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() { p.terminate(ReasonCancelled, r.grace()) })
	}
	wg.Wait()
	r.mu.Lock()
	r.reaper.close()
	r.reaper = nil
	r.mu.Unlock()
}

// Run starts the command and returns when its whole tree is gone and its
// output is stored. The error is set only when nothing was started.
func (r *Runner) Run(ctx context.Context, req Request) (*Result, error) {
	if req.Timeout <= 0 {
		return nil, errors.New("timeout must be positive")
	}
	shell, err := ResolveShell(req.Env)
	if err != nil {
		return nil, err
	}
	wd, err := pindir.Open(req.Root, req.Dir)
	if err != nil {
		return nil, err
	}
	defer wd.Close() // the child has made it its cwd once start returns
	spawnID := newSpawnID()
	dir, rel, dirErr := artifactDir(req.ArtifactRoot, spawnID)
	arts := [2]*artifact{openArtifact(dir, rel, "stdout.log"), openArtifact(dir, rel, "stderr.log")}
	for _, a := range arts {
		a.limit = cmp.Or(max(req.OutputCap, 0), DefaultOutputCap)
	}
	if dirErr != nil {
		arts[0].err, arts[1].err = dirErr, dirErr
	}
	defer func() { // an early return must not leak a descriptor
		for _, a := range arts {
			_ = a.close()
		}
	}()
	var pipes [2][2]*os.File // [stream][read, write]
	for i := range pipes {
		rd, wr, err := os.Pipe()
		if err != nil {
			closeAll(pipes[:i])
			return nil, fmt.Errorf("create output pipe: %w", err)
		}
		widenPipe(rd)
		pipes[i] = [2]*os.File{rd, wr}
	}

	p, err := r.start(shell, req, wd, spawnID, pipes[0][1], pipes[1][1])
	// The child has its copies of the write ends; ours must go, or the
	// drains would never see the end of the streams.
	_ = pipes[0][1].Close()
	_ = pipes[1][1].Close()
	if err != nil {
		_ = pipes[0][0].Close()
		_ = pipes[1][0].Close()
		for _, a := range arts {
			_ = a.close()
		}
		if dirErr == nil {
			_ = os.RemoveAll(dir) // nothing ran: no artifact to keep
		}
		return nil, err
	}
	defer r.forget(p)
	begin := time.Now()
	if sr, ok := req.Emit.(SpawnReporter); ok {
		// Before the sender starts: Emit calls come one at a time. A host
		// that does not hear of the group only loses its last resort.
		_ = sr.Spawned(p.PGID, p.StartMarker)
	}

	chunks := make(chan chunk, 64)
	senderDone := make(chan error, 1)
	go func() { senderDone <- send(req.Emit, chunks) }()
	secrets := streamSecrets(req)
	streams := [2]*stream{newStream("stdout", secrets, arts[0], chunks), newStream("stderr", secrets, arts[1], chunks)}
	drainErrs := [2]error{}
	var drains sync.WaitGroup
	for i, s := range streams {
		drains.Go(func() { drainErrs[i] = s.drain(pipes[i][0]) })
	}
	drained := make(chan struct{})
	go func() { drains.Wait(); close(drained) }()

	reason := r.supervise(ctx, p, req, begin)

	select {
	case <-drained:
	case <-time.After(drainWait):
		_ = pipes[0][0].Close()
		_ = pipes[1][0].Close()
		<-drained
	}
	_ = pipes[0][0].Close()
	_ = pipes[1][0].Close()

	res := &Result{ExitReason: reason, Spawn: p.Spawn, Sandbox: sandboxOf(req).mode()}
	exitStatus(p.state, res)
	var failures []error
	for i, s := range streams {
		sr, artErr := s.finish()
		if i == 0 {
			res.Stdout = sr
		} else {
			res.Stderr = sr
		}
		failures = append(failures, drainErrs[i], artErr)
	}
	close(chunks)
	sendErr := <-senderDone
	res.DurationMS = time.Since(begin).Milliseconds()
	if err := errors.Join(failures...); err != nil {
		res.ExitReason, res.Error = ReasonFailed, err.Error()
	}
	if sendErr == nil && req.Emit != nil {
		for _, a := range arts {
			if a.err == nil {
				sendErr = errors.Join(sendErr, req.Emit.Artifact(a.path, "text/plain", a.size, ""))
			}
		}
	}
	_ = sendErr // the host stopped listening; the result says the rest
	return res, nil
}

// streamSecrets are the bound secrets and the host's other values: the
// artifact must hold nothing the host's views would hide.
func streamSecrets(req Request) *redact.Replacer {
	list := append(make([]redact.Secret, 0, len(req.Secrets)+len(req.Redact)), req.Redact...)
	for target, value := range req.Secrets {
		list = append(list, redact.Secret{Target: target, Value: value})
	}
	return redact.NewReplacer(list)
}

// start spawns under the lock so Shutdown never misses a tree.
func (r *Runner) start(shell string, req Request, wd *pindir.Dir, spawnID string, stdout, stderr *os.File) (*process, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrShuttingDown
	}
	if r.reaper == nil && r.ReaperExe != "" {
		// Fail closed: without the reaper a killed plugin would leave its
		// trees behind.
		rp, err := startReaper(r.ReaperExe)
		if err != nil {
			return nil, err
		}
		r.reaper = rp
	}
	if testHookPinned != nil {
		testHookPinned()
	}
	p, err := startIn(shell, req.Command, wd.ChildPath(), req.Env, stdout, stderr, spawnID, sandboxOf(req))
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", shell, err)
	}
	r.live[p.SpawnID] = p
	r.reaper.add(p.PGID, p.StartMarker)
	return p, nil
}

// forget drops a command whose tree is gone.
func (r *Runner) forget(p *process) {
	r.mu.Lock()
	delete(r.live, p.SpawnID)
	r.reaper.remove(p.PGID)
	r.mu.Unlock()
}

// supervise waits for the shell to exit, the timeout, the binding expiry,
// cancellation or shutdown, and makes sure the whole tree is gone before
// it returns the exit reason.
func (r *Runner) supervise(ctx context.Context, p *process, req Request, begin time.Time) string {
	timeout := time.NewTimer(req.Timeout - time.Since(begin))
	defer timeout.Stop()
	var expire <-chan time.Time
	if !req.ExpireAt.IsZero() {
		t := time.NewTimer(time.Until(req.ExpireAt))
		defer t.Stop()
		expire = t.C
	}
	select {
	case <-p.exited:
		// What the shell left behind in its group dies with the call.
		p.terminate(ReasonExited, r.grace())
	case <-ctx.Done():
		reason := ReasonCancelled
		if errors.Is(context.Cause(ctx), context.DeadlineExceeded) {
			reason = ReasonTimeout
		}
		p.terminate(reason, r.grace())
	case <-timeout.C:
		p.terminate(ReasonTimeout, r.grace())
	case <-expire:
		p.terminate(ReasonExpired, r.grace())
	case <-p.killed: // Shutdown
	}
	<-p.exited
	<-p.killed
	// The first terminate wins, Shutdown's included: a shell that exited
	// on its own while the plugin stopped counts as cancelled.
	return p.reason
}

// exitStatus fills the exit code and signal from the reaped leader.
func exitStatus(st *os.ProcessState, res *Result) {
	ws, ok := st.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		res.ExitCode = st.ExitCode()
	case ws.Signaled():
		res.ExitCode = -1
		res.Signal = ws.Signal().String()
		if res.ExitReason == ReasonExited {
			res.ExitReason = ReasonSignaled
		}
	default:
		res.ExitCode = ws.ExitStatus()
	}
}

// send hands chunks to the host in order. After the first failure (the
// host went away) it keeps taking chunks so no drain ever waits on it.
func send(e Emitter, chunks <-chan chunk) error {
	var err error
	for c := range chunks {
		if err == nil && e != nil {
			err = e.Output(c.stream, c.data)
		}
	}
	return err
}

func closeAll(pipes [][2]*os.File) {
	for _, pp := range pipes {
		_ = pp[0].Close()
		_ = pp[1].Close()
	}
}
