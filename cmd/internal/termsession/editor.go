package termsession

import (
	"fmt"
	"os"
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
type LineEditor struct {
	*readline.Instance
	in *readline.CancelableStdin
}

// Close ends the read in flight, then closes the editor, which puts the
// terminal back as it was.
func (e *LineEditor) Close() error {
	e.in.Close()
	return e.Instance.Close()
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
	rl, err := readline.NewEx(&readline.Config{
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
	for _, l := range lines {
		rl.SaveHistory(l)
	}
	return &LineEditor{Instance: rl, in: in}, hist, nil
}

// EditorLines reads through readline; a prompt change while a read is in
// flight is redrawn at once.
func EditorLines(rl *readline.Instance) *LineBroker {
	return &LineBroker{
		// The prompt is set under the broker's lock (setPrompt), never
		// by the read itself: a read that started late would otherwise
		// put back a prompt a reprompt had already replaced (an approval
		// asked again after an unrecognised answer showed the busy
		// prompt instead).
		read: func(string) (string, error) { return rl.Readline() },
		reprompt: func(p string) {
			rl.SetPrompt(p)
			redrawOnceReading(rl)
		},
		setPrompt: rl.SetPrompt,
	}
}

// redrawOnceReading redraws the prompt of the read in flight. readline
// draws a read's prompt and only then does its terminal loop mark itself
// reading; Refresh does nothing until that mark. A prompt changed in
// between (an approval asked again right after its last answer was read)
// was never drawn, so a redraw that finds no read waits for the mark, a
// bounded while, off the caller's goroutine. A redraw too many is
// harmless: it draws the current prompt and line again.
func redrawOnceReading(rl *readline.Instance) {
	if rl.Terminal.IsReading() {
		rl.Refresh()
		return
	}
	go func() {
		for range 500 {
			time.Sleep(time.Millisecond)
			if rl.Terminal.IsReading() {
				rl.Refresh()
				return
			}
		}
	}()
}
