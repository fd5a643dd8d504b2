package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/hostd"
	"demiurge.dev/host/turn"
	"demiurge.dev/shared/hostv1"
)

// hostSession is the interactive session as a front end of the state's
// long-lived host: one session stream carries its chat turns (their
// events, running output, approvals and clarify questions, asked here
// and only here), its /call calls and its /stop. The host keeps the
// session's turn loop between turns; what it shows between them (a
// background task's completion turn) is shown as it comes.
type hostSession struct {
	cl      *hostd.Client
	stream  hostv1.Host_SessionClient
	send    func(*hostv1.FrontEndMessage) error
	session string
	model   string
	// view shows the host's events and answers its clarify questions:
	// the terminal chat's renderer (fe), or an ACP client.
	view hostView
	// fe is the terminal chat's renderer; nil for an ACP session.
	fe       *chatFrontEnd
	approver approval.Provider

	// replies are the host's outcome and ended messages, in order; gone
	// is closed with err set when the stream ends.
	replies chan *hostv1.HostMessage
	// allowsReplies answer /approvals (beside a running turn's replies),
	// catalogReplies /tools.
	allowsReplies  chan *hostv1.AllowsReply
	catalogReplies chan *hostv1.CatalogResponse
	// live shows the running /call's output (nil when none runs).
	liveMu sync.Mutex
	live   *liveOutput
	gone   chan struct{}
	err    error
	// asks ends the questions in hand when the session ends.
	asks   context.Context
	endAsk context.CancelFunc
	wg     sync.WaitGroup
	// closing: this front end ends the stream (not the host).
	closing atomic.Bool
}

// openHostSession opens the session stream (resuming `resume` when set)
// and the chat: the host opens the model with this front end's flags and
// the key from this environment, and names it ("" without one).
func openHostSession(c *cli.Context, resume string, fe *chatFrontEnd, approver approval.Provider) (*hostSession, error) {
	hs, err := openHostView(c, resume, fe, approver, nil)
	if hs != nil {
		hs.fe = fe
	}
	return hs, err
}

// openHostView opens a session stream whose events go to view.
// editor is what the view's editor offers (an ACP client's fs
// capabilities, minor 10), nil for none.
func openHostView(c *cli.Context, resume string, view hostView, approver approval.Provider, editor *hostv1.EditorCapabilities) (*hostSession, error) {
	cl, err := connectHost(c)
	if err != nil {
		return nil, err
	}
	if err := cl.Needs(6, "the interactive session"); err != nil {
		cl.Close()
		return nil, err
	}
	hs := &hostSession{cl: cl, view: view, approver: approver, replies: make(chan *hostv1.HostMessage, 4),
		allowsReplies: make(chan *hostv1.AllowsReply, 1), catalogReplies: make(chan *hostv1.CatalogResponse, 1), gone: make(chan struct{})}
	hs.asks, hs.endAsk = context.WithCancel(context.Background())
	hs.stream, err = cl.Session(context.Background())
	if err != nil {
		cl.Close()
		return nil, err
	}
	hs.send = lockedSender(hs.stream)
	if editor != nil && cl.Needs(10, "the editor's capabilities") != nil {
		// An older host has no editor tools: the editor is not used.
		editor = nil
	}
	open := &hostv1.OpenSession{Principal: c.String("principal"), Asker: true, Approve: c.StringSlice("approve"), Resume: resume, Editor: editor}
	if err := hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: open}}); err != nil {
		hs.close()
		return nil, err
	}
	first, err := hs.stream.Recv()
	if err != nil {
		hs.close()
		if st, ok := status.FromError(err); ok && st.Code() != codes.Unavailable {
			return nil, errors.New(st.Message())
		}
		return nil, err
	}
	hs.session = first.GetOpened().GetSession()
	view.opened(hs.session)
	go hs.receive()
	f := modelFlagsOf(c)
	ended, err := hs.runTurn(context.Background(), &hostv1.RunTurn{Chat: true, Model: f.Model, BaseUrl: f.BaseURL,
		MaxSteps: int32(f.MaxSteps), ContextWindow: int32(f.ContextWindow), MaxOutputTokens: int32(f.MaxOutputTokens)})
	if err != nil {
		hs.close()
		return nil, err
	}
	if ended.ExitCode != 0 {
		hs.close()
		if ended.ExitCode == exitUsage {
			return nil, usageError{errors.New(ended.Error)}
		}
		return nil, cli.Exit("demiurge: "+ended.Error, int(ended.ExitCode))
	}
	hs.model = ended.Model
	return hs, nil
}

func (hs *hostSession) close() {
	hs.closing.Store(true)
	hs.endAsk()
	hs.stream.CloseSend()
	hs.cl.Close()
	hs.wg.Wait()
}

// receive shows what the host sends as it comes; questions are answered
// beside it, so events keep coming while one is asked.
func (hs *hostSession) receive() {
	defer close(hs.gone)
	for {
		m, err := hs.stream.Recv()
		if err != nil {
			hs.err = err
			hs.endAsk()
			return
		}
		switch x := m.Msg.(type) {
		case *hostv1.HostMessage_Event:
			if hs.callEvent(x.Event) {
				continue
			}
			var ev turn.Event
			if err := json.Unmarshal(x.Event, &ev); err != nil {
				hs.view.Show(turn.Event{Type: turn.EventNotice, Text: "an event this demiurge cannot read: " + err.Error()})
				continue
			}
			if ev.Agent != "" {
				hs.view.ShowChild(ev)
			} else {
				hs.view.Show(ev)
			}
		case *hostv1.HostMessage_Output:
			if x.Output.Progress != "" {
				hs.view.progress("", dispatch.Event{Progress: x.Output.Progress})
			} else {
				hs.view.output("", "", x.Output.Text)
			}
		case *hostv1.HostMessage_Warning:
			hs.view.warn(x.Warning)
		case *hostv1.HostMessage_Env:
			// The model key the host's chat needs, from this environment.
			_ = hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Env{Env: &hostv1.EnvAnswer{Id: x.Env.Id, Value: os.Getenv(x.Env.Name)}}})
		case *hostv1.HostMessage_Approval:
			hs.wg.Add(1)
			go func() { defer hs.wg.Done(); hs.approve(x.Approval) }()
		case *hostv1.HostMessage_Clarify:
			hs.wg.Add(1)
			go func() { defer hs.wg.Done(); hs.clarify(x.Clarify) }()
		case *hostv1.HostMessage_Editor:
			hs.wg.Add(1)
			go func() { defer hs.wg.Done(); hs.editor(x.Editor) }()
		case *hostv1.HostMessage_Outcome, *hostv1.HostMessage_Ended:
			hs.replies <- m
		case *hostv1.HostMessage_Allows:
			hs.allowsReplies <- x.Allows
		case *hostv1.HostMessage_Catalog:
			hs.catalogReplies <- x.Catalog
		}
	}
}

func (hs *hostSession) approve(q *hostv1.ApprovalRequest) {
	a := approval.Deny
	req, err := hostd.DecodeRequest(q.Request)
	if l := hs.currentLive(); l != nil {
		// A /call's question: the spinner keeps off it until answered.
		l.hold()
		defer l.release()
	}
	if err != nil {
		hs.view.warn(fmt.Sprintf("demiurge: the host's approval question could not be read (%v): denied\n", err))
	} else if a, err = hs.approver.Ask(hs.asks, req); err != nil {
		a = approval.Deny
	}
	_ = hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Answer{Answer: &hostv1.ApprovalAnswer{Id: q.Id, Answer: int32(a)}}})
}

func (hs *hostSession) clarify(q *hostv1.ClarifyRequest) {
	text, ok, err := hs.view.Clarify(hs.asks, q.Question, q.Choices)
	ans := &hostv1.ClarifyAnswer{Id: q.Id, Text: text, Answered: ok && err == nil}
	_ = hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Clarify{Clarify: ans}})
}

// editorView is a view whose editor does the host's editor requests (an
// ACP client's fs methods).
type editorView interface {
	editorDo(ctx context.Context, method string, params []byte) ([]byte, error)
}

// editor does one editor request of the host: an editor tool's call the
// host admitted (dispatch: capability, path policy, approval, audit).
func (hs *hostSession) editor(q *hostv1.EditorRequest) {
	reply := &hostv1.EditorReply{Id: q.Id}
	if ev, ok := hs.view.(editorView); !ok {
		reply.Error = "this front end has no editor"
	} else if res, err := ev.editorDo(hs.asks, q.Method, q.Params); err != nil {
		reply.Error = err.Error()
	} else {
		reply.Result = res
	}
	_ = hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Editor{Editor: reply}})
}

// runTurn sends one chat request and waits for its end; ctx's end (/stop,
// Ctrl-C) asks the host to stop the turn, whose end still comes.
func (hs *hostSession) runTurn(ctx context.Context, q *hostv1.RunTurn) (*hostv1.RunEnded, error) {
	if err := hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Run{Run: q}}); err != nil {
		return nil, hs.lost(err)
	}
	m, err := hs.reply(ctx)
	if err != nil {
		return nil, err
	}
	if e := m.GetEnded(); e != nil {
		return e, nil
	}
	return nil, errors.New("the host answered a turn with a call's outcome")
}

// reply waits for the host's next outcome or ended message.
func (hs *hostSession) reply(ctx context.Context) (*hostv1.HostMessage, error) {
	done := ctx.Done()
	for {
		select {
		case m := <-hs.replies:
			return m, nil
		case <-done:
			done = nil // asked once; the end still comes
			_ = hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Interrupt{Interrupt: &hostv1.Interrupt{Signal: 2}}})
		case <-hs.gone:
			select {
			case m := <-hs.replies:
				return m, nil
			default:
			}
			return nil, hs.lost(hs.err)
		}
	}
}

// lost is the error of a session whose host went away.
func (hs *hostSession) lost(err error) error {
	if err == nil {
		err = errors.New("the stream ended")
	}
	return fmt.Errorf("the host (pid %d) went away: %v", hs.cl.PID, err)
}

// chat is one chat turn in the foreground.
func (hs *hostSession) chat(ctx context.Context, prompt string) error {
	ended, err := hs.runTurn(ctx, &hostv1.RunTurn{Prompt: prompt, Chat: true})
	switch {
	case err != nil:
		return err
	case ended.ExitCode == exitInterrupted:
		fmt.Fprintln(hs.fe.ErrOut, "(turn stopped; the session goes on)")
	case ended.ExitCode != 0:
		fmt.Fprintf(hs.fe.ErrOut, "demiurge: %s\n", printable(ended.Error, 2000))
	}
	return nil
}

// call is /call through the host: the call runs in this session, what it
// asks is asked here, /stop cancels it; its output and progress are shown
// on live as they come, as the in-process /call shows them, and left out
// of the card after.
func (hs *hostSession) call(ctx context.Context, name, args string, live *liveOutput) (string, error) {
	hs.liveMu.Lock()
	hs.live = live
	hs.liveMu.Unlock()
	defer func() {
		hs.liveMu.Lock()
		hs.live = nil
		hs.liveMu.Unlock()
		live.close()
	}()
	if err := hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Call{Call: &hostv1.ToolCall{Name: name, Args: []byte(args)}}}); err != nil {
		return "", hs.lost(err)
	}
	m, err := hs.reply(ctx)
	if err != nil {
		return "", err
	}
	o := m.GetOutcome()
	if o == nil {
		return "", errors.New("the host answered a call with a turn's end")
	}
	out, err := hostd.DecodeOutcome(o.Outcome)
	if err != nil {
		return "", fmt.Errorf("the host's outcome could not be read: %w", err)
	}
	live.close()
	body := live.notShownAgain(strings.TrimRight(out.Views.Card.Body, "\n"))
	st := ""
	switch {
	case ctx.Err() != nil:
		st = " [stopped]"
	case !out.OK():
		st = fmt.Sprintf(" [%s]", out.Status)
	}
	return fmt.Sprintf("── %s%s\n%s\n", printable(out.Views.Card.Title, 2000), st, printable(body, 1<<20)), nil
}

func (hs *hostSession) currentLive() *liveOutput {
	hs.liveMu.Lock()
	defer hs.liveMu.Unlock()
	return hs.live
}

// callEvent shows a running /call's output or progress event (reporting
// whether b was one): the host streams them to an asker front end
// (hostd.CallEvent).
func (hs *hostSession) callEvent(b []byte) bool {
	var ev hostd.CallEvent
	if json.Unmarshal(b, &ev) != nil || (ev.Type != hostd.CallOutput && ev.Type != hostd.CallProgress) {
		return false
	}
	l := hs.currentLive()
	if l == nil {
		return true // the call it belonged to has ended
	}
	if ev.Type == hostd.CallOutput {
		l.output("", ev.Stream, ev.Text)
	} else {
		l.event("", dispatch.Event{Progress: ev.Progress, Fraction: ev.Fraction})
	}
	return true
}

// tools is /tools: this session's own catalog, as the host resolves it
// for the session (the tools it activated, the servers it connected); a
// host older than minor 7 answers with a fresh session's of the
// principal.
func (hs *hostSession) tools(ctx context.Context, principal, mode string) (string, []string, error) {
	var res *hostv1.CatalogResponse
	if hs.cl.Minor >= 7 {
		// No timeout: resolving may ask this front end (an MCP connect),
		// and a late answer must not be taken for the next /tools'.
		if err := hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Catalog{Catalog: &hostv1.CatalogRequest{DisplayMode: mode}}}); err != nil {
			return "", nil, hs.lost(err)
		}
		select {
		case res = <-hs.catalogReplies:
		case <-hs.gone:
			return "", nil, hs.lost(hs.err)
		}
	} else {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		var err error
		if res, err = hs.cl.Catalog(ctx, &hostv1.CatalogRequest{Principal: principal, DisplayMode: mode}); err != nil {
			return "", nil, err
		}
	}
	if res.Error != "" {
		return "", nil, errors.New(res.Error)
	}
	return string(res.Text), res.Notes, nil
}

// toolNames are the names /call completes: the quiet listing, a name a
// line.
func (hs *hostSession) toolNames(c *cli.Context) []string {
	text, _, err := hs.tools(c.Context, c.String("principal"), "quiet")
	if err != nil {
		return nil
	}
	return strings.Fields(text)
}

// allows is /approvals through the host: this session's allows as the
// host lists them, after the revoke asked for (0: none).
func (hs *hostSession) allows(revoke int, all bool) ([]approval.Allow, string, error) {
	req := &hostv1.AllowsRequest{Revoke: int32(revoke), RevokeAll: all}
	if err := hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Allows{Allows: req}}); err != nil {
		return nil, "", hs.lost(err)
	}
	select {
	case rep := <-hs.allowsReplies:
		var list []approval.Allow
		if err := json.Unmarshal(rep.Allows, &list); err != nil {
			return nil, "", fmt.Errorf("the host's approvals could not be read: %w", err)
		}
		return list, rep.Note, nil
	case <-hs.gone:
		return nil, "", hs.lost(hs.err)
	}
}
