package main

import "github.com/chzyer/readline"

// lineEditor is readline on the operator's terminal, with a Close that
// ends a read in flight. readline (v1.5.1) closes only its own buffer in
// front of the input and then waits for its reader, which sits in the
// terminal's read: a read left in flight as the session ends (the one
// the busy turn asked for after a "/quit" typed while it ran, that
// "/quit" then run from the queue) held the exit until a key was pressed.
type lineEditor struct {
	*readline.Instance
	in *readline.CancelableStdin
}

// Close ends the read in flight, then closes the editor, which puts the
// terminal back as it was.
func (e *lineEditor) Close() error {
	e.in.Close()
	return e.Instance.Close()
}
