package termsession

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/shared/hostv1"
	"demiurge.dev/shared/turnevent"
)

// HostView is what a session stream's events are shown on and who
// answers its clarify questions: the terminal chat (Chat) or an editor
// over ACP.
type HostView interface {
	Show(ev turnevent.Event)
	ShowChild(ev turnevent.Event)
	// Output and Progress are a running call's output and progress.
	Output(callID, stream, text string)
	Progress(callID, progress string, fraction float64)
	// Warn is a notice of the host's, shown apart from the answer.
	Warn(text string)
	Clarify(ctx context.Context, question string, choices []string) (string, bool, error)
	// Opened names the session the stream opened.
	Opened(session string)
}

// EditorView is a view whose editor does the host's editor requests (an
// ACP client's fs methods).
type EditorView interface {
	EditorDo(ctx context.Context, method string, params []byte) ([]byte, error)
}

// Approver answers one approval request of the host (its wire JSON)
// with the answer's number (prompt.Answer); anything it cannot read it
// denies.
type Approver func(ctx context.Context, request []byte) int32

// HostSession is the interactive session as a front end of the state's
// long-lived host: one session stream carries its chat turns (their
// events, running output, approvals and clarify questions, asked here
// and only here), its /call calls and its /stop. The host keeps the
// session's turn loop between turns; what it shows between them (a
// background task's completion turn) is shown as it comes.
type HostSession struct {
	Client *hostclient.Client
	stream hostv1.Host_SessionClient
	send   func(*hostv1.FrontEndMessage) error
	// Session is the session's id; Model the chat's model ("" without).
	Session string
	Model   string
	// View shows the host's events and answers its clarify questions.
	View     HostView
	approver Approver
	// opts is how it was opened (a switch opens the next alike).
	opts OpenOptions

	// replies are the host's outcome and ended messages, in order; gone
	// is closed with err set when the stream ends.
	replies chan *hostv1.HostMessage
	// allowsReplies answer /approvals (beside a running turn's replies),
	// catalogReplies /tools.
	allowsReplies  chan *hostv1.AllowsReply
	catalogReplies chan *hostv1.CatalogResponse
	// live shows the running /call's output (nil when none runs).
	liveMu sync.Mutex
	live   *frontview.Live
	gone   chan struct{}
	err    error
	// fg is the turn or /call in the foreground (nil when none).
	fgMu sync.Mutex
	fg   *foreground
	// asks ends the questions in hand when the session ends.
	asks   context.Context
	endAsk context.CancelFunc
	wg     sync.WaitGroup
	// closing: this front end ends the stream (not the host).
	closing atomic.Bool
}

// OpenOptions are a session stream's opening: the front end's principal
// and --approve rules, the session to resume ("" for a new one), the
// editor's capabilities (nil for none) and the chat's model flags.
type OpenOptions struct {
	Principal string
	Approve   []string
	Resume    string
	Editor    *hostv1.EditorCapabilities
	// Chat is the opening RunTurn's model flags (Chat is set).
	Chat *hostv1.RunTurn
	// Env reads the model key the host asks for (os.Getenv).
	Env func(string) string
}

// OpenRefused is the host's refusal to open the chat (a bad --model, no
// key): its exit status and message.
type OpenRefused struct {
	Code int
	Msg  string
}

func (e *OpenRefused) Error() string { return e.Msg }

// OpenHostSession opens a session stream on cl (taking it: closed with
// the session, or at once on failure) whose events go to view.
func OpenHostSession(cl *hostclient.Client, opts OpenOptions, view HostView, approver Approver) (*HostSession, error) {
	if err := cl.Needs(6, "the interactive session"); err != nil {
		cl.Close()
		return nil, err
	}
	hs := &HostSession{Client: cl, View: view, approver: approver, opts: opts, replies: make(chan *hostv1.HostMessage, 4),
		allowsReplies: make(chan *hostv1.AllowsReply, 1), catalogReplies: make(chan *hostv1.CatalogResponse, 1), gone: make(chan struct{})}
	hs.asks, hs.endAsk = context.WithCancel(context.Background())
	var err error
	hs.stream, err = cl.Session(context.Background())
	if err != nil {
		cl.Close()
		return nil, err
	}
	hs.send = frontview.SerialSend(hs.stream)
	editor := opts.Editor
	if editor != nil && cl.Needs(10, "the editor's capabilities") != nil {
		// An older host has no editor tools: the editor is not used.
		editor = nil
	}
	open := &hostv1.OpenSession{Principal: opts.Principal, Asker: true, Approve: opts.Approve, Resume: opts.Resume, Editor: editor}
	if err := hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Open{Open: open}}); err != nil {
		hs.Close()
		return nil, err
	}
	first, err := hs.stream.Recv()
	if err != nil {
		hs.Close()
		if st, ok := status.FromError(err); ok && st.Code() != codes.Unavailable {
			return nil, errors.New(st.Message())
		}
		return nil, err
	}
	hs.Session = first.GetOpened().GetSession()
	view.Opened(hs.Session)
	go hs.receive()
	chat := &hostv1.RunTurn{}
	if opts.Chat != nil {
		chat = opts.Chat
	}
	chat.Chat = true
	ended, err := hs.RunTurn(context.Background(), chat)
	if err != nil {
		hs.Close()
		return nil, err
	}
	if ended.ExitCode != 0 {
		hs.Close()
		return nil, &OpenRefused{Code: int(ended.ExitCode), Msg: ended.Error}
	}
	hs.Model = ended.Model
	return hs, nil
}

// Reopen opens another stream on the same host as hs, alike but for the
// session to resume ("" for a new one).
func (hs *HostSession) Reopen(dial func() (*hostclient.Client, error), resume string) (*HostSession, error) {
	cl, err := dial()
	if err != nil {
		return nil, err
	}
	opts := hs.opts
	opts.Resume = resume
	return OpenHostSession(cl, opts, hs.View, hs.approver)
}

// Close ends the stream (the front end's doing, not the host's).
func (hs *HostSession) Close() {
	hs.closing.Store(true)
	hs.endAsk()
	hs.stream.CloseSend()
	hs.Client.Close()
	hs.wg.Wait()
}

// Gone is closed when the stream ends.
func (hs *HostSession) Gone() <-chan struct{} { return hs.gone }

// Closing reports whether this front end ended the stream.
func (hs *HostSession) Closing() bool { return hs.closing.Load() }

// Err is why the stream ended (after Gone).
func (hs *HostSession) Err() error { return hs.err }

// receive shows what the host sends as it comes; questions are answered
// beside it, so events keep coming while one is asked.
func (hs *HostSession) receive() {
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
			var ev turnevent.Event
			if err := json.Unmarshal(x.Event, &ev); err != nil {
				hs.View.Show(turnevent.Event{Type: turnevent.EventNotice, Text: "an event this demiurge cannot read: " + err.Error()})
				continue
			}
			if ev.Agent != "" {
				hs.View.ShowChild(ev)
			} else {
				hs.View.Show(ev)
			}
		case *hostv1.HostMessage_Output:
			if x.Output.Progress != "" {
				hs.View.Progress("", x.Output.Progress, 0)
			} else {
				hs.View.Output("", "", x.Output.Text)
			}
		case *hostv1.HostMessage_Warning:
			hs.View.Warn(x.Warning)
		case *hostv1.HostMessage_Env:
			// The model key the host's chat needs, from this environment.
			v := ""
			if hs.opts.Env != nil {
				v = hs.opts.Env(x.Env.Name)
			}
			_ = hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Env{Env: &hostv1.EnvAnswer{Id: x.Env.Id, Value: v}}})
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

func (hs *HostSession) approve(q *hostv1.ApprovalRequest) {
	if l := hs.currentLive(); l != nil {
		// A /call's question: the spinner keeps off it until answered.
		l.Hold()
		defer l.Release()
	}
	a := hs.approver(hs.asks, q.Request)
	hs.stopped()
	_ = hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Answer{Answer: &hostv1.ApprovalAnswer{Id: q.Id, Answer: a}}})
}

func (hs *HostSession) clarify(q *hostv1.ClarifyRequest) {
	text, ok, err := hs.View.Clarify(hs.asks, q.Question, q.Choices)
	ans := &hostv1.ClarifyAnswer{Id: q.Id, Text: text, Answered: ok && err == nil}
	hs.stopped()
	_ = hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Clarify{Clarify: ans}})
}

// editor does one editor request of the host: an editor tool's call the
// host admitted (dispatch: capability, path policy, approval, audit).
func (hs *HostSession) editor(q *hostv1.EditorRequest) {
	reply := &hostv1.EditorReply{Id: q.Id}
	if ev, ok := hs.View.(EditorView); !ok {
		reply.Error = "this front end has no editor"
	} else if res, err := ev.EditorDo(hs.asks, q.Method, q.Params); err != nil {
		reply.Error = err.Error()
	} else {
		reply.Result = res
	}
	hs.stopped()
	_ = hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Editor{Editor: reply}})
}

// RunTurn sends one chat request and waits for its end; ctx's end (/stop,
// Ctrl-C) asks the host to stop the turn, whose end still comes.
func (hs *HostSession) RunTurn(ctx context.Context, q *hostv1.RunTurn) (*hostv1.RunEnded, error) {
	if err := hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Run{Run: q}}); err != nil {
		return nil, hs.Lost(err)
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

// foreground is a turn or /call in hand: its context, and the host asked
// once to stop it when that context ends.
type foreground struct {
	ctx       context.Context
	interrupt func()
}

// stopped asks the host to stop the foreground work if its context has
// ended, before an answer its end caused is sent: a question the editor
// stopped asking (session/cancel) is answered "deny" (a clarify "no
// answer", an editor request an error), and such an answer reaching the
// host before the Interrupt would let the turn go on to one more model
// request.
func (hs *HostSession) stopped() {
	hs.fgMu.Lock()
	fg := hs.fg
	hs.fgMu.Unlock()
	if fg != nil && fg.ctx.Err() != nil {
		fg.interrupt()
	}
}

// enterForeground registers the work of ctx as the foreground's until
// leave.
func (hs *HostSession) enterForeground(ctx context.Context) (fg *foreground, leave func()) {
	fg = &foreground{ctx: ctx, interrupt: sync.OnceFunc(func() {
		_ = hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Interrupt{Interrupt: &hostv1.Interrupt{Signal: 2}}})
	})}
	hs.fgMu.Lock()
	hs.fg = fg
	hs.fgMu.Unlock()
	return fg, func() {
		hs.fgMu.Lock()
		hs.fg = nil
		hs.fgMu.Unlock()
	}
}

// reply waits for the host's next outcome or ended message.
func (hs *HostSession) reply(ctx context.Context) (*hostv1.HostMessage, error) {
	fg, leave := hs.enterForeground(ctx)
	defer leave()
	done := ctx.Done()
	for {
		select {
		case m := <-hs.replies:
			return m, nil
		case <-done:
			done = nil // asked once; the end still comes
			fg.interrupt()
		case <-hs.gone:
			select {
			case m := <-hs.replies:
				return m, nil
			default:
			}
			return nil, hs.Lost(hs.err)
		}
	}
}

// Lost is the error of a session whose host went away.
func (hs *HostSession) Lost(err error) error {
	return fmt.Errorf("the host (pid %d) went away: %s", hs.Client.PID, hostclient.GoneCause(err))
}

// exitInterrupted is a turn's end status after /stop or Ctrl-C (130).
const exitInterrupted = 130

// Chat is one chat turn in the foreground; what went wrong with the
// turn is said on errOut, a lost host returned.
func (hs *HostSession) Chat(ctx context.Context, prompt string, errOut interface{ Write([]byte) (int, error) }) error {
	ended, err := hs.RunTurn(ctx, &hostv1.RunTurn{Prompt: prompt, Chat: true})
	switch {
	case err != nil:
		return err
	case ended.ExitCode == exitInterrupted:
		fmt.Fprintln(errOut, "(turn stopped; the session goes on)")
	case ended.ExitCode != 0:
		fmt.Fprintf(errOut, "demiurge: %s\n", printable(ended.Error, 2000))
	}
	return nil
}

// Call is /call through the host: the call runs in this session, what it
// asks is asked here, /stop cancels it; its output and progress are shown
// on live as they come, as the in-process /call shows them, and left out
// of the card after.
func (hs *HostSession) Call(ctx context.Context, name, args string, live *frontview.Live) (string, error) {
	hs.liveMu.Lock()
	hs.live = live
	hs.liveMu.Unlock()
	defer func() {
		hs.liveMu.Lock()
		hs.live = nil
		hs.liveMu.Unlock()
		live.Close()
	}()
	if err := hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Call{Call: &hostv1.ToolCall{Name: name, Args: []byte(args)}}}); err != nil {
		return "", hs.Lost(err)
	}
	m, err := hs.reply(ctx)
	if err != nil {
		return "", err
	}
	o := m.GetOutcome()
	if o == nil {
		return "", errors.New("the host answered a call with a turn's end")
	}
	var out frontview.Outcome
	if err := json.Unmarshal(o.Outcome, &out); err != nil {
		return "", fmt.Errorf("the host's outcome could not be read: %w", err)
	}
	live.Close()
	body := live.NotShownAgain(strings.TrimRight(out.Card.Body, "\n"))
	st := ""
	switch {
	case ctx.Err() != nil:
		st = " [stopped]"
	case !out.OK():
		st = fmt.Sprintf(" [%s]", out.Status)
	}
	return fmt.Sprintf("── %s%s\n%s\n", printable(out.Card.Title, 2000), st, printable(body, 1<<20)), nil
}

func (hs *HostSession) currentLive() *frontview.Live {
	hs.liveMu.Lock()
	defer hs.liveMu.Unlock()
	return hs.live
}

// callEvent is a running /call's output or progress (hostd.CallEvent).
type callEvent struct {
	Type     string  `json:"type"` // call_output or call_progress
	Stream   string  `json:"stream,omitempty"`
	Text     string  `json:"text,omitempty"`
	Progress string  `json:"progress,omitempty"`
	Fraction float64 `json:"fraction,omitempty"`
}

// callEvent shows a running /call's output or progress event (reporting
// whether b was one): the host streams them to an asker front end.
func (hs *HostSession) callEvent(b []byte) bool {
	var ev callEvent
	if json.Unmarshal(b, &ev) != nil || (ev.Type != "call_output" && ev.Type != "call_progress") {
		return false
	}
	l := hs.currentLive()
	if l == nil {
		return true // the call it belonged to has ended
	}
	if ev.Type == "call_output" {
		l.Output(ev.Stream, ev.Text)
	} else {
		l.Progress(ev.Progress, ev.Fraction)
	}
	return true
}

// Tools is /tools: this session's own catalog, as the host resolves it
// for the session (the tools it activated, the servers it connected); a
// host older than minor 7 answers with a fresh session's of the
// principal.
func (hs *HostSession) Tools(ctx context.Context, principal, mode string) (string, []string, error) {
	var res *hostv1.CatalogResponse
	if hs.Client.Minor >= 7 {
		// No timeout: resolving may ask this front end (an MCP connect),
		// and a late answer must not be taken for the next /tools'.
		if err := hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Catalog{Catalog: &hostv1.CatalogRequest{DisplayMode: mode}}}); err != nil {
			return "", nil, hs.Lost(err)
		}
		select {
		case res = <-hs.catalogReplies:
		case <-hs.gone:
			return "", nil, hs.Lost(hs.err)
		}
	} else {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		var err error
		if res, err = hs.Client.Catalog(ctx, &hostv1.CatalogRequest{Principal: principal, DisplayMode: mode}); err != nil {
			return "", nil, err
		}
	}
	if res.Error != "" {
		return "", nil, errors.New(res.Error)
	}
	return string(res.Text), res.Notes, nil
}

// ToolNames are the names /call completes: the quiet listing, a name a
// line.
func (hs *HostSession) ToolNames(ctx context.Context, principal string) []string {
	text, _, err := hs.Tools(ctx, principal, "quiet")
	if err != nil {
		return nil
	}
	return strings.Fields(text)
}

// Allows is /approvals through the host: this session's allows as the
// host lists them (approval.Allow's JSON), after the revoke asked for
// (0: none).
func (hs *HostSession) Allows(revoke int, all bool) (json.RawMessage, string, error) {
	req := &hostv1.AllowsRequest{Revoke: int32(revoke), RevokeAll: all}
	if err := hs.send(&hostv1.FrontEndMessage{Msg: &hostv1.FrontEndMessage_Allows{Allows: req}}); err != nil {
		return nil, "", hs.Lost(err)
	}
	select {
	case rep := <-hs.allowsReplies:
		return rep.Allows, rep.Note, nil
	case <-hs.gone:
		return nil, "", hs.Lost(hs.err)
	}
}
