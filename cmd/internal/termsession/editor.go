package termsession

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/chzyer/readline"
)

// Prompt is the session's prompt; BusyPrompt shows while a turn or call
// runs in the foreground (the input stays live for /stop).
const (
	Prompt     = "> "
	BusyPrompt = ""
)

// LineEditor is readline on the operator's terminal, with a Close that
// ends a read in flight. readline (v1.5.1) closes only its own buffer in
// front of the input and then waits for its reader, which sits in the
// terminal's read: a read left in flight as the session ends (the one
// the busy turn asked for after a "/quit" typed while it ran, that
// "/quit" then run from the queue) held the exit until a key was pressed.
//
// It also keeps what a redraw of the prompt must know (see reprompt).
type LineEditor struct {
	*readline.Instance
	in *readline.CancelableStdin

	mu sync.Mutex
	// gen counts prompt changes and line ends: a redraw waiting for a
	// read draws only if nothing changed since it was asked.
	gen uint64
	// open: a read is in flight and its line has not ended.
	open bool
	// sawReading and decided, set only by tests, run in a redraw that
	// waited for a read: once it sees the read waiting (before it takes
	// the lock), and as it decides whether to draw (under the lock).
	sawReading func()
	decided    func(drew bool)
}

// Close ends the read in flight, then closes the editor, which puts the
// terminal back as it was.
func (e *LineEditor) Close() error {
	if e.in != nil {
		e.in.Close()
	}
	return e.Instance.Close()
}

// newLineEditor makes the readline instance of cfg, which the editor
// watches for line ends.
func newLineEditor(cfg *readline.Config) (*LineEditor, error) {
	e := &LineEditor{}
	cfg.FuncFilterInputRune = e.filter
	rl, err := readline.NewEx(cfg)
	if err != nil {
		return nil, err
	}
	e.Instance = rl
	return e, nil
}

// OpenLineEditor makes the readline instance on tty (the operator's
// terminal), with the persisted history of the state directory loaded
// and completion attached.
func OpenLineEditor(tty *os.File, state string, comp readline.AutoCompleter) (*LineEditor, *History, error) {
	hist, lines, err := LoadHistory(HistoryPath(state))
	if err != nil {
		return nil, nil, err
	}
	fd := int(tty.Fd())
	in := readline.NewCancelableStdin(tty)
	var saved *readline.State
	e, err := newLineEditor(&readline.Config{
		Prompt: Prompt, Stdin: in, Stdout: os.Stdout, Stderr: os.Stderr,
		AutoComplete: comp, HistoryLimit: HistoryLimit,
		// Only session lines go to the history, never approval answers.
		DisableAutoSaveHistory: true,
		FuncIsTerminal:         func() bool { return true },
		FuncMakeRaw: func() (err error) {
			saved, err = readline.MakeRaw(fd)
			return err
		},
		FuncExitRaw: func() error {
			if saved == nil {
				return nil
			}
			return readline.Restore(fd, saved)
		},
	})
	if err != nil {
		return nil, nil, fmt.Errorf("line editor: %w", err)
	}
	e.in = in
	for _, l := range lines {
		e.SaveHistory(l)
	}
	return e, hist, nil
}

// EditorLines reads through readline; a prompt change while a read is in
// flight is redrawn at once.
func EditorLines(e *LineEditor) *LineBroker {
	return &LineBroker{
		// The prompt is set under the broker's lock (setPrompt), never
		// by the read itself: a read that started late would otherwise
		// put back a prompt a reprompt had already replaced (an approval
		// asked again after an unrecognised answer showed the busy
		// prompt instead).
		read:      e.read,
		reprompt:  e.reprompt,
		setPrompt: e.setPrompt,
	}
}

// read reads one line, marking it open until it ends.
func (e *LineEditor) read(string) (string, error) {
	e.mu.Lock()
	e.open = true
	e.mu.Unlock()
	line, err := e.Readline()
	e.lineEnded()
	return line, err
}

// lineEnded marks the read's line ended: no redraw may draw its prompt
// any more.
func (e *LineEditor) lineEnded() {
	e.mu.Lock()
	e.open = false
	e.gen++
	e.mu.Unlock()
}

// filter sees each key before readline acts on it (on readline's
// goroutine). Enter ends the line (not while a completion is being
// picked, where it picks it), as does the input's end; marking that
// here, under the lock a redraw holds, puts every redraw either before
// the line's newline is echoed or not at all. (Ctrl-C and Ctrl-D end a
// line only in some of readline's modes; those lines are marked ended
// as the read returns.)
func (e *LineEditor) filter(r rune) (rune, bool) {
	if r == 0 || (r == readline.CharEnter || r == readline.CharCtrlJ) && !e.Operation.IsInCompleteSelectMode() {
		e.lineEnded()
	}
	return r, true
}

// setPrompt sets the prompt of the next read.
func (e *LineEditor) setPrompt(p string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gen++
	e.SetPrompt(p)
}

// reprompt changes the prompt of the read in flight and redraws it.
// readline draws a read's prompt and only then does its terminal loop
// mark itself reading; Refresh does nothing until that mark. A prompt
// changed in between (an approval asked again right after its last
// answer was read) was never drawn, so a redraw that finds no read
// waiting waits for the mark, a bounded while, off the caller's
// goroutine. With no read open the next read draws the prompt set.
func (e *LineEditor) reprompt(p string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.gen++
	e.SetPrompt(p)
	switch {
	case !e.open:
	case e.Terminal.IsReading():
		e.Refresh()
	default:
		go e.redrawOnceReading(e.gen)
	}
}

// redrawOnceReading redraws the prompt set at generation gen once the
// read waits, unless the prompt changed or the line ended meanwhile: the
// answer to a question typed while this waited must not bring the
// question back under it (TestSessionOnATerminalIsTheFrontEnds showed an
// approval's prompt again after its answer).
func (e *LineEditor) redrawOnceReading(gen uint64) {
	for range 500 {
		time.Sleep(time.Millisecond)
		if !e.Terminal.IsReading() {
			continue
		}
		if e.sawReading != nil {
			e.sawReading()
		}
		e.mu.Lock()
		defer e.mu.Unlock()
		drew := e.gen == gen && e.open
		if e.decided != nil {
			e.decided(drew)
		}
		if drew {
			e.Refresh()
		}
		return
	}
}
