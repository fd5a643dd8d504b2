package termsession

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chzyer/readline"
)

// lockedBuffer is the terminal's screen as written, safe across the
// editor's goroutines.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	// oldDrawn is closed when the old prompt is first drawn.
	oldDrawn chan struct{}
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.oldDrawn != nil && bytes.Contains(p, []byte("<<old>>")) {
		close(b.oldDrawn)
		b.oldDrawn = nil
	}
	return b.buf.Write(p)
}

// lastPrompt is the last of the two prompts drawn.
func (b *lockedBuffer) lastPrompt() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.buf.String()
	if strings.LastIndex(s, "<<new>>") > strings.LastIndex(s, "<<old>>") {
		return "<<new>>"
	}
	return "<<old>>"
}

// TestRepromptAsAReadStartsIsDrawn: a prompt changed just as a read
// starts is on the screen once the read waits. readline draws a read's
// prompt before its terminal loop marks itself reading, and its Refresh
// does nothing until then, so a reprompt in that window (an approval
// asked again right after its last answer was read: the TestTTYChat
// flake) left the old prompt showing. Races a read's start against a
// reprompt many times; each must end with the new prompt drawn.
func TestRepromptAsAReadStartsIsDrawn(t *testing.T) {
	const rounds = 50
	lost := 0
	for i := 0; i < rounds; i++ {
		inR, inW := io.Pipe()
		screen := &lockedBuffer{oldDrawn: make(chan struct{})}
		oldDrawn := screen.oldDrawn
		rl, err := readline.NewEx(&readline.Config{
			Prompt: "<<old>>", Stdin: inR, Stdout: screen, Stderr: screen,
			FuncIsTerminal: func() bool { return true },
			FuncMakeRaw:    func() error { return nil },
			FuncExitRaw:    func() error { return nil },
		})
		if err != nil {
			t.Fatal(err)
		}
		b := EditorLines(rl)
		done := make(chan struct{})
		go func() { rl.Readline(); close(done) }()
		<-oldDrawn // the read drew its prompt and is about to wait
		b.reprompt("<<new>>")
		for deadline := time.Now().Add(time.Second); !rl.Terminal.IsReading(); time.Sleep(100 * time.Microsecond) {
			if time.Now().After(deadline) {
				t.Fatal("the read never started")
			}
		}
		drawn := false
		for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
			if screen.lastPrompt() == "<<new>>" {
				drawn = true
				break
			}
		}
		if !drawn {
			lost++
		}
		inW.Write([]byte("\n"))
		<-done
		rl.Close()
		inW.Close()
	}
	if lost > 0 {
		t.Fatalf("%d of %d prompts changed as a read started were never drawn", lost, rounds)
	}
}
