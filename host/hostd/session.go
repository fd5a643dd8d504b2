package hostd

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// Session serves one front end session: it opens a session of the named
// principal (or resumes one of its), runs the calls and turns the front
// end sends (one at a time: a call in a fresh dispatch turn, a run as an
// agent turn whose events come down this stream), and asks the front
// end, on this stream only, what needs approval. When the stream ends,
// the work in hand is cancelled (its foreground turn ends) and what it
// was asked is denied; the session's background tasks go on.
func (s *Server) Session(stream hostv1.Host_SessionServer) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	open := first.GetOpen()
	if open == nil {
		return status.Error(codes.InvalidArgument, "a session starts with open")
	}
	if _, err := approval.WithCommandLine(nil, open.Approve); err != nil {
		return status.Error(codes.InvalidArgument, err.Error())
	}
	resumed := open.Resume != ""
	ses, err := s.openSession(ctx, open)
	if err != nil {
		return err
	}
	defer s.track(ses)()
	stash := &Stash{}
	defer stash.close() // before the session ends (deferred above)
	fe := &frontEnd{stream: stream, ctx: ctx, asker: open.Asker, pending: map[uint64]chan approval.Answer{}, envs: map[uint64]chan string{},
		clarifies: map[uint64]chan *hostv1.ClarifyAnswer{}, editors: map[uint64]chan *hostv1.EditorReply{}}
	// This front end's editor, or none (a resumed session may have had
	// another front end's).
	ses.SetEditor(newFrontEndEditor(fe, open.Editor))
	if err := fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Opened{Opened: &hostv1.SessionOpened{Session: ses.ID()}}}); err != nil {
		return err
	}
	work := make(chan *hostv1.FrontEndMessage, 1)
	go func() {
		defer close(work)
		for {
			m, err := stream.Recv()
			if err != nil {
				cancel() // the front end went away: its work ends, its questions are denied
				return
			}
			switch x := m.Msg.(type) {
			case *hostv1.FrontEndMessage_Call, *hostv1.FrontEndMessage_Run:
				select {
				case work <- m:
				case <-ctx.Done():
					return
				}
			case *hostv1.FrontEndMessage_Answer:
				fe.answer(x.Answer)
			case *hostv1.FrontEndMessage_Env:
				fe.envAnswer(x.Env)
			case *hostv1.FrontEndMessage_Interrupt:
				fe.interrupted()
			case *hostv1.FrontEndMessage_Clarify:
				fe.clarifyAnswer(x.Clarify)
			case *hostv1.FrontEndMessage_Editor:
				fe.editorReply(x.Editor)
			case *hostv1.FrontEndMessage_Catalog:
				// Beside the receive loop: resolving may ask this front
				// end (an MCP connect), whose answer this loop reads.
				go func() {
					res := s.sessionCatalog(ctx, ses, open.Approve, fe, x.Catalog)
					if fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Catalog{Catalog: res}}) != nil {
						cancel()
					}
				}()
			case *hostv1.FrontEndMessage_Allows:
				if err := fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Allows{Allows: s.allows(ses, x.Allows)}}); err != nil {
					cancel()
					return
				}
			default:
				cancel()
				return
			}
		}
	}()
	n := 0
	for m := range work {
		if req := m.GetRun(); req != nil {
			ended := s.run(ctx, fe, ses, resumed, open, req, stash)
			if ctx.Err() != nil {
				break
			}
			if err := fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Ended{Ended: ended}}); err != nil {
				return err
			}
			continue
		}
		call := m.GetCall()
		n++
		// The core's rules, this front end's --approve, the session allows;
		// the front end is asked, its connects of MCP servers included.
		approvals, err := frontEndApprovals(s.h.Approvals, open.Approve, fe)
		if err != nil {
			return status.Error(codes.InvalidArgument, err.Error())
		}
		turn, err := ses.NewTurnWith(ctx, toolhost.TurnOptions{Tool: call.Name, Unrecorded: true, Approvals: approvals})
		if err != nil {
			return status.Errorf(codes.Internal, "the catalog could not be resolved for this call: %v", err)
		}
		if d := turn.Catalog.Disclosure(); d != nil && turn.Catalog.Hidden(call.Name) {
			// The operator naming a deferred tool is its search.
			d.Activate(call.Name)
		}
		if open.Asker {
			// A front end on a terminal shows the output as it comes.
			streamCallOutput(turn, fe)
		}
		// What the catalog found (an MCP server not connected, and why)
		// goes to this front end, as the in-process command prints it.
		for _, w := range ses.Warnings() {
			if err := fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Warning{Warning: w}}); err != nil {
				return err
			}
		}
		// An interrupt (the interactive session's /stop) cancels the call;
		// its outcome still comes.
		callCtx, stopCall := context.WithCancel(ctx)
		fe.setInterrupt(stopCall)
		out := turn.Call(callCtx, dispatch.ToolCall{ID: fmt.Sprintf("cli_%d", n), Name: call.Name, Args: call.Args})
		fe.setInterrupt(nil)
		stopCall()
		s.calls.Add(1)
		if ctx.Err() != nil {
			break
		}
		b, err := encodeOutcome(out)
		if err != nil {
			return status.Errorf(codes.Internal, "outcome: %v", err)
		}
		if err := fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Outcome{Outcome: &hostv1.CallOutcome{Outcome: b}}}); err != nil {
			return err
		}
		if call.Wait {
			ended := s.waitTasks(ctx, fe, ses)
			if err := fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Ended{Ended: ended}}); err != nil {
				return err
			}
		}
	}
	return nil
}

// openSession is the front end's session: a fresh one, or the one it
// names (minor 3), the principal's own or a new one under that name.
func (s *Server) openSession(ctx context.Context, open *hostv1.OpenSession) (*toolhost.Session, error) {
	if open.Resume != "" {
		ses, err := s.h.ResumeSessionAs(s.principal(open.Principal), open.Resume)
		if errors.Is(err, toolhost.ErrUnknownSession) {
			return nil, status.Errorf(codes.NotFound, "no session %s of yours; 'demiurge sessions list' shows them", open.Resume)
		}
		if err != nil {
			return nil, status.Error(codes.FailedPrecondition, err.Error())
		}
		return ses, nil
	}
	if open.Session == "" {
		return s.h.OpenSessionAs(s.principal(open.Principal), false), nil
	}
	ses, err := s.h.OpenNamedSessionAs(ctx, s.principal(open.Principal), open.Session)
	if errors.Is(err, toolhost.ErrSessionInUse) {
		return nil, status.Error(codes.FailedPrecondition, err.Error())
	}
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	return ses, nil
}

// frontEnd is the approval provider of one front end's session.
type frontEnd struct {
	stream hostv1.Host_SessionServer
	ctx    context.Context
	asker  bool

	sendMu sync.Mutex
	mu     sync.Mutex
	nextID uint64
	// pending are the questions asked and not yet answered; envs the
	// environment variables asked.
	pending map[uint64]chan approval.Answer
	envs    map[uint64]chan string
	// clarifies are the model's questions asked and not yet answered.
	clarifies map[uint64]chan *hostv1.ClarifyAnswer
	// editors are the editor requests sent and not yet answered.
	editors map[uint64]chan *hostv1.EditorReply
	// interrupt cancels the run in hand.
	interrupt context.CancelFunc
}

func (f *frontEnd) send(m *hostv1.HostMessage) error {
	f.sendMu.Lock()
	defer f.sendMu.Unlock()
	return f.stream.Send(m)
}

func (f *frontEnd) Name() string { return "front-end" }

// Ask sends the question to this front end and waits for its answer; a
// front end that cannot answer, or goes away, denies.
func (f *frontEnd) Ask(ctx context.Context, req approval.Request) (approval.Answer, error) {
	if !f.asker {
		return approval.Deny, nil
	}
	b, err := encodeRequest(req)
	if err != nil {
		return approval.Deny, err
	}
	ch := make(chan approval.Answer, 1)
	f.mu.Lock()
	f.nextID++
	id := f.nextID
	f.pending[id] = ch
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		delete(f.pending, id)
		f.mu.Unlock()
	}()
	if err := f.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Approval{Approval: &hostv1.ApprovalRequest{Id: id, Request: b}}}); err != nil {
		return approval.Deny, nil
	}
	select {
	case a := <-ch:
		return a, nil
	case <-ctx.Done():
		return approval.Deny, ctx.Err()
	case <-f.ctx.Done():
		return approval.Deny, nil
	}
}

func (f *frontEnd) answer(a *hostv1.ApprovalAnswer) {
	f.mu.Lock()
	ch := f.pending[a.Id]
	f.mu.Unlock()
	if ch == nil {
		return // not asked, or no longer waited for
	}
	ans := approval.Deny
	switch approval.Answer(a.Answer) {
	case approval.AllowOnce:
		ans = approval.AllowOnce
	case approval.AllowSession:
		ans = approval.AllowSession
	case approval.DenySession:
		ans = approval.DenySession
	}
	select {
	case ch <- ans:
	default:
	}
}
