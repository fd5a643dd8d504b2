package termsession

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval/prompt"
	"demiurge.dev/host/hostd/hostclient"
)

// RemoteConfig is how a binary runs the interactive session through the
// host (RunRemote): its standard streams, its flags, and the hooks for
// what it answers itself.
type RemoteConfig struct {
	Ctx   context.Context
	State string
	// Stdin is the operator's input; TTY says it is a terminal (someone
	// can answer approvals and questions).
	Stdin          *os.File
	TTY            bool
	Stdout, Stderr io.Writer
	Display        catalog.DisplayMode
	// ToolDisplay, Principal, Quiet: Remote's.
	ToolDisplay, Principal string
	Quiet                  bool
	// Dial connects to the host, for the opening and each /session switch.
	Dial func() (*hostclient.Client, error)
	Open OpenOptions
	// OpenError is how a refused open is returned or said;
	// FirstOpenError, when set, the session's first (the small front end
	// hands the session over to the full CLI then, nothing shown yet).
	OpenError, FirstOpenError func(error) error
	// OldApprover answers, on a terminal, a request that carries no card
	// rendered by the host (a host older than protocol 1.11); nil: such a
	// request is denied. out and lines are the session's.
	OldApprover func(out io.Writer, lines func(ctx context.Context, prompt string) (string, error)) Approver
}

// RunRemote is the interactive session as a front end of the state's
// host: the turns, calls and the state they read are the host's. On a
// terminal it has the same line editor, history, queueing and /stop as
// in process; fed from a pipe it reads one line at a time, a turn runs
// to its end before the next line is read, and no one can answer: the
// host asks this front end, which denies every approval and says no one
// is present to a clarify question, as the in-process session from a
// pipe does. A session whose host went away exits 1 at once.
func RunRemote(cfg RemoteConfig) error {
	r := &Remote{Loop: &Loop{Ctx: cfg.Ctx}, ToolDisplay: cfg.ToolDisplay, Principal: cfg.Principal, Quiet: cfg.Quiet,
		Dial: cfg.Dial, OpenError: cfg.OpenError}
	var ask Approver = func(context.Context, []byte) int32 { return int32(prompt.Deny) }
	var rl *LineEditor
	if cfg.TTY {
		var hist *History
		var err error
		rl, hist, err = OpenLineEditor(cfg.Stdin, cfg.State, Completer{Tools: r.ToolNames})
		if err != nil {
			return err
		}
		defer rl.Close()
		r.TTY, r.Hist = true, hist
		r.Out, r.ErrOut = rl.Stdout(), rl.Stderr()
		r.Lines = EditorLines(rl)
		r.Chat = &Chat{Out: r.Out, ErrOut: r.ErrOut, Display: cfg.Display, LineBuffered: true,
			Ask: r.Lines, Interrupt: func() { r.StopForeground("^C") }, Lead: r.Lines.SetLead}
		var old Approver
		if cfg.OldApprover != nil {
			old = cfg.OldApprover(r.ErrOut, r.Answer)
		}
		ask = cardApprover(r.Chat, &prompt.Terminal{Out: r.ErrOut, Lines: r.Answer}, old)
	} else {
		r.Out, r.ErrOut = cfg.Stdout, cfg.Stderr
		r.Lines = PipeLines(cfg.Stdin, r.Out)
		r.Chat = &Chat{Out: r.Out, ErrOut: r.ErrOut, Display: cfg.Display}
	}
	cl, err := cfg.Dial()
	if err != nil {
		return err
	}
	hs, err := OpenHostSession(cl, cfg.Open, r.Chat, ask)
	if err != nil {
		if cfg.FirstOpenError != nil {
			return cfg.FirstOpenError(err)
		}
		if cfg.OpenError != nil {
			err = cfg.OpenError(err)
		}
		return err
	}
	r.Start(hs)
	defer func() { r.Current().Close() }() // the session in use at the end
	stop := r.CatchInterrupts()
	defer stop()
	r.Banner()
	err = r.Run()
	if !r.LostHost() {
		r.noteTasksOnExit(r.Current())
	}
	if r.LostHost() {
		// A pipe's reader stays blocked on its input until a line
		// comes: give the terminal its mode back and end now, non-zero
		// (never hang on a dead host).
		if rl != nil {
			rl.Terminal.ExitRawMode()
		}
		os.Exit(1)
	}
	return err
}

// wireQuestion is what is read of the host's approval request: the card
// as the full CLI renders it (host protocol 1.11) and which answers it
// offers.
type wireQuestion struct {
	Card             string `json:"card"`
	SessionAllowable bool   `json:"session_allowable,omitempty"`
	SessionDeniable  bool   `json:"session_deniable,omitempty"`
}

// cardApprover asks the host's question on the terminal with the card
// the host rendered; a request without one goes to old (nil: denied).
func cardApprover(view HostView, t *prompt.Terminal, old Approver) Approver {
	return func(ctx context.Context, b []byte) int32 {
		var q wireQuestion
		if err := json.Unmarshal(b, &q); err != nil {
			view.Warn(fmt.Sprintf("demiurge: the host's approval question could not be read (%v): denied\n", err))
			return int32(prompt.Deny)
		}
		if q.Card == "" {
			if old == nil {
				return int32(prompt.Deny)
			}
			return old(ctx, b)
		}
		a, err := t.Ask(ctx, prompt.Card{Body: q.Card, SessionAllowable: q.SessionAllowable, SessionDeniable: q.SessionDeniable})
		if err != nil {
			return int32(prompt.Deny)
		}
		return int32(a)
	}
}
