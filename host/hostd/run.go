package hostd

import (
	"context"
	"encoding/json"
	"sync"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
	"demiurge.dev/shared/hostv1"
)

// Runner runs one headless agent turn for a front end (`demiurge run`):
// the CLI gives the host it starts its own, so a run through the host is
// the run of the command line. It returns the exit status the front end
// ends with, a message for its standard error, and for a chat's opening
// the model's name.
type Runner func(ctx context.Context, r Run) *hostv1.RunEnded

// Run is one run request, with everything the host issues for it.
type Run struct {
	Host *toolhost.Host
	// Session is the front end's session (new, or resumed); Source gives
	// its turns under the front end's --approve rules.
	Session *toolhost.Session
	Source  turn.Source
	Resumed bool
	Request *hostv1.RunTurn
	// FrontEnd shows the turn to the asking front end, and only to it.
	FrontEnd *RunFrontEnd
	// Stash keeps what the runs of one front end session share (the
	// interactive session's turn loop) until the session's stream ends.
	Stash *Stash
}

// Stash is what a front end session's runs keep between them; what is
// stored is closed when the stream ends.
type Stash struct {
	mu     sync.Mutex
	v      any
	closer func()
}

// Load is what was stored (nil: nothing yet).
func (s *Stash) Load() any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.v
}

// Store keeps v; close is called once when the front end's stream ends.
func (s *Stash) Store(v any, close func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.v, s.closer = v, close
}

func (s *Stash) close() {
	s.mu.Lock()
	c := s.closer
	s.v, s.closer = nil, nil
	s.mu.Unlock()
	if c != nil {
		c()
	}
}

// RunFrontEnd is the asking front end as a run sees it: a turn.FrontEnd
// whose events go down its stream, and whose questions only it answers.
type RunFrontEnd struct{ fe *frontEnd }

// Show sends one event in the `run --json` format. A front end that has
// gone away is not waited for: its run is cancelled through its context.
func (r *RunFrontEnd) Show(ev turn.Event) {
	b, err := json.Marshal(ev)
	if err != nil {
		return
	}
	_ = r.fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Event{Event: b}})
}

// ShowChild sends a child agent's event, tagged with its agent and
// parent_agent, down the same stream: the front end tells it from the
// parent's by the tag (run --json prints it as one more line).
func (r *RunFrontEnd) ShowChild(ev turn.Event) { r.Show(ev) }

// Approver asks this front end (which denies when it cannot answer).
func (r *RunFrontEnd) Approver() approval.Provider { return r.fe }

// Clarify asks the front end the model's question when it can answer (an
// interactive session, minor 6); a headless one has no one to answer.
func (r *RunFrontEnd) Clarify(ctx context.Context, question string, choices []string) (string, bool, error) {
	if !r.fe.asker {
		return "", false, nil
	}
	return r.fe.clarify(ctx, question, choices)
}

// Output sends a running call's (already redacted) output as it comes.
func (r *RunFrontEnd) Output(text string) {
	_ = r.fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Output{Output: &hostv1.CallOutput{Text: text}}})
}

// Progress sends a running call's progress line.
func (r *RunFrontEnd) Progress(line string) {
	_ = r.fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Output{Output: &hostv1.CallOutput{Progress: line}}})
}

// Notice is a line for the front end's standard error.
func (r *RunFrontEnd) Notice(line string) {
	_ = r.fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Warning{Warning: line}})
}

// Getenv reads one variable of the front end's environment (the model
// key): "" when it has none, is gone, or ctx ends first.
func (r *RunFrontEnd) Getenv(ctx context.Context, name string) string {
	return r.fe.getenv(ctx, name)
}

// frontEndSource gives a front end session's turns under that front
// end's --approve rules, beside the core's and the session's allows.
type frontEndSource struct {
	*toolhost.Session
	host    *approval.Resolver
	approve []string
	fe      *frontEnd
}

func (f frontEndSource) NewTurn(ctx context.Context) (*dispatch.Turn, error) {
	// The turn's MCP connects are resolved while its catalog is, so they
	// must already be judged by the front end's rules and asked of it,
	// never by the host's own (absent) terminal.
	approvals, err := frontEndApprovals(f.host, f.approve, f.fe)
	if err != nil {
		return nil, err
	}
	return f.Session.NewTurnWith(ctx, toolhost.TurnOptions{Approvals: approvals})
}

// run serves one run request of the session's front end.
func (s *Server) run(ctx context.Context, fe *frontEnd, ses *toolhost.Session, resumed bool, open *hostv1.OpenSession, req *hostv1.RunTurn, stash *Stash) *hostv1.RunEnded {
	if s.opts.Runner == nil {
		return &hostv1.RunEnded{ExitCode: 1, Error: "this host runs no agent turns"}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fe.setInterrupt(cancel)
	defer fe.setInterrupt(nil)
	return s.opts.Runner(ctx, Run{Host: s.h, Session: ses, Source: frontEndSource{Session: ses, host: s.h.Approvals, approve: open.Approve, fe: fe},
		Resumed: resumed, Request: req, FrontEnd: &RunFrontEnd{fe: fe}, Stash: stash})
}

// getenv asks the front end for one variable of its environment.
func (f *frontEnd) getenv(ctx context.Context, name string) string {
	ch := make(chan string, 1)
	f.mu.Lock()
	f.nextID++
	id := f.nextID
	f.envs[id] = ch
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.envs, id)
		f.mu.Unlock()
	}()
	if err := f.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Env{Env: &hostv1.EnvRequest{Id: id, Name: name}}}); err != nil {
		return ""
	}
	select {
	case v := <-ch:
		return v
	case <-ctx.Done():
	case <-f.ctx.Done():
	}
	return ""
}

func (f *frontEnd) envAnswer(a *hostv1.EnvAnswer) {
	f.mu.Lock()
	ch := f.envs[a.Id]
	f.mu.Unlock()
	if ch == nil {
		return // not asked, or no longer waited for
	}
	select {
	case ch <- a.Value:
	default:
	}
}

// setInterrupt names what an interrupt from the front end cancels: the
// run in hand (nil: none).
func (f *frontEnd) setInterrupt(cancel context.CancelFunc) {
	f.mu.Lock()
	f.interrupt = cancel
	f.mu.Unlock()
}

func (f *frontEnd) interrupted() {
	f.mu.Lock()
	cancel := f.interrupt
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}
