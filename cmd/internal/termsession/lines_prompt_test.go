package termsession

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestBrokerPromptIsTheNewestWaiters: the editor's prompt is set by the
// broker, under its lock, to the newest waiter's before each read, and a
// read never sets it itself. So an approval's prompt shows while it
// waits, and once it is answered the busy prompt is back for the next
// read (a stale prompt put back by a late read was the TestTTYChat flake).
func TestBrokerPromptIsTheNewestWaiters(t *testing.T) {
	var mu sync.Mutex
	current := ""
	set := func(p string) { mu.Lock(); current = p; mu.Unlock() }
	shown := func() string { mu.Lock(); defer mu.Unlock(); return current }
	lines := make(chan string)
	started := make(chan struct{}, 8)
	b := &LineBroker{
		read:      func(string) (string, error) { started <- struct{}{}; return <-lines, nil },
		reprompt:  set,
		setPrompt: set,
	}
	waitShown := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); shown() != want; time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the prompt is %q, want %q", shown(), want)
			}
		}
	}
	busy, stopBusy := context.WithCancel(context.Background())
	defer stopBusy()
	go b.ReadLine(busy, "busy> ", false)
	<-started
	if got := shown(); got != "busy> " {
		t.Fatalf("the first read's prompt is %q, want the waiter's", got)
	}
	answer := make(chan string, 1)
	go func() {
		line, _ := b.ReadLine(context.Background(), "[s]ession> ", true)
		answer <- line
	}()
	waitShown("[s]ession> ")
	lines <- "o"
	if got := <-answer; got != "o" {
		t.Fatalf("the approval got %q", got)
	}
	<-started // the next read, for the busy waiter
	if got := shown(); got != "busy> " {
		t.Fatalf("after the answer the prompt is %q, want the busy prompt back", got)
	}
	stopBusy()
	lines <- "" // let the read in flight end
}

// TestBrokerQuestionAskedBeforeTheBusyReadTakesTheAnswer: a turn's
// approval can come back from the host before the session asks for the
// busy prompt's read (the foreground starts the call, then reads). The
// approval still takes the next line and its prompt stays shown: the
// busy read joining after it took "huh" and queued it as the next
// command, and the approval waited on (a TestSessionOnATerminalIsTheFrontEnds
// flake).
func TestBrokerQuestionAskedBeforeTheBusyReadTakesTheAnswer(t *testing.T) {
	var mu sync.Mutex
	current := ""
	set := func(p string) { mu.Lock(); current = p; mu.Unlock() }
	shown := func() string { mu.Lock(); defer mu.Unlock(); return current }
	lines := make(chan string)
	started := make(chan struct{}, 8)
	b := &LineBroker{
		read:      func(string) (string, error) { started <- struct{}{}; return <-lines, nil },
		reprompt:  set,
		setPrompt: set,
	}
	answer := make(chan string, 1)
	go func() {
		line, _ := b.ReadLine(context.Background(), "allow? ", true)
		answer <- line
	}()
	<-started
	busy, stopBusy := context.WithCancel(context.Background())
	defer stopBusy()
	busyLine := make(chan string, 1)
	go func() { line, _ := b.ReadLine(busy, "", false); busyLine <- line }()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		b.mu.Lock()
		n := len(b.waiters)
		b.mu.Unlock()
		if n == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the busy read never waited")
		}
	}
	if got := shown(); got != "allow? " {
		t.Fatalf("with the busy read waiting too the prompt is %q, want the approval's", got)
	}
	lines <- "huh"
	select {
	case got := <-answer:
		if got != "huh" {
			t.Fatalf("the approval got %q", got)
		}
	case got := <-busyLine:
		t.Fatalf("the busy read took the approval's answer %q", got)
	}
	<-started // the next read, for the busy waiter
	if got := shown(); got != "" {
		t.Fatalf("after the answer the prompt is %q, want the busy prompt back", got)
	}
	stopBusy()
	lines <- "" // let the read in flight end
}
