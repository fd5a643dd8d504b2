package hostd

import (
	"context"
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
// principal, runs the calls the front end sends (one at a time, in a
// fresh turn each), and asks the front end, on this stream only, what
// needs approval. When the stream ends, the call in hand is cancelled
// (its foreground turn ends) and what it was asked is denied; the
// session's background tasks go on.
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
	ses, err := s.openSession(ctx, open)
	if err != nil {
		return err
	}
	defer s.track(ses)()
	fe := &frontEnd{stream: stream, ctx: ctx, asker: open.Asker, pending: map[uint64]chan approval.Answer{}}
	if err := fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Opened{Opened: &hostv1.SessionOpened{Session: ses.ID()}}}); err != nil {
		return err
	}
	calls := make(chan *hostv1.ToolCall, 1)
	go func() {
		defer close(calls)
		for {
			m, err := stream.Recv()
			if err != nil {
				cancel() // the front end went away: its call ends, its questions are denied
				return
			}
			switch x := m.Msg.(type) {
			case *hostv1.FrontEndMessage_Call:
				select {
				case calls <- x.Call:
				case <-ctx.Done():
					return
				}
			case *hostv1.FrontEndMessage_Answer:
				fe.answer(x.Answer)
			default:
				cancel()
				return
			}
		}
	}()
	n := 0
	for call := range calls {
		n++
		turn, err := ses.NewTurn(ctx)
		if err != nil {
			return status.Errorf(codes.Internal, "the catalog could not be resolved for this call: %v", err)
		}
		if d := turn.Catalog.Disclosure(); d != nil && turn.Catalog.Hidden(call.Name) {
			// The operator naming a deferred tool is its search.
			d.Activate(call.Name)
		}
		r := *turn.Approvals // the core's rules, this front end's --approve, the session allows
		r.Provider = fe
		if r.Rules, err = approval.WithCommandLine(r.Rules, open.Approve); err != nil {
			return status.Error(codes.InvalidArgument, err.Error())
		}
		turn.Approvals = &r
		out := turn.Call(ctx, dispatch.ToolCall{ID: fmt.Sprintf("cli_%d", n), Name: call.Name, Args: call.Args})
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
	}
	return nil
}

// openSession is the front end's session: a fresh one, or the one it
// names (minor 3), the principal's own or a new one under that name.
func (s *Server) openSession(ctx context.Context, open *hostv1.OpenSession) (*toolhost.Session, error) {
	if open.Session == "" {
		return s.h.OpenSessionAs(s.principal(open.Principal), false), nil
	}
	ses, err := s.h.OpenNamedSessionAs(ctx, s.principal(open.Principal), open.Session)
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
	// pending are the questions asked and not yet answered.
	pending map[uint64]chan approval.Answer
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
	}
	select {
	case ch <- ans:
	default:
	}
}
