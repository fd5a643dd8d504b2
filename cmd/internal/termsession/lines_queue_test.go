package termsession

import (
	"context"
	"testing"
	"time"
)

// TestBrokerKeepsEveryUntakenLine: two waiters give up at once. The
// newer is handed the first line as its ctx ends; the older leaves
// before the second line comes, which then finds no waiter. Both lines
// must wait, in the order typed, for the next readers (one slot for an
// untaken line kept only the last to be stored: the first was lost).
func TestBrokerKeepsEveryUntakenLine(t *testing.T) {
	reads, lines := make(chan string, 8), make(chan string)
	held, release := make(chan struct{}), make(chan struct{})
	b := &LineBroker{read: func(p string) (string, error) { reads <- p; return <-lines, nil }}
	b.gaveUp = func(prompt string) {
		if prompt == "a> " {
			close(held)
			<-release
		}
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			b.mu.Lock()
			done := ok()
			b.mu.Unlock()
			if done {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("the broker never got to %s", what)
			}
		}
	}
	type result struct {
		line string
		err  error
	}
	read := func(ctx context.Context, prompt string) chan result {
		ch := make(chan result, 1)
		go func() {
			line, err := b.ReadLine(ctx, prompt, false)
			ch <- result{line, err}
		}()
		return ch
	}
	ctxB, cancelB := context.WithCancel(context.Background())
	resB := read(ctxB, "b> ")
	<-reads // the first read is in flight
	ctxA, cancelA := context.WithCancel(context.Background())
	resA := read(ctxA, "a> ")
	waitFor("two waiters", func() bool { return len(b.waiters) == 2 })
	cancelA()
	<-held         // A's ctx has ended; it has not left yet
	lines <- "one" // handed to A, the newest waiter
	<-reads        // the next read, for B
	cancelB()
	if r := <-resB; r.err == nil {
		t.Fatalf("B read %q after its ctx ended", r.line)
	}
	lines <- "two" // no one waits for it now
	waitFor("the end of its reads", func() bool { return !b.inflight })
	close(release)
	if r := <-resA; r.err == nil {
		t.Fatalf("A read %q after its ctx ended", r.line)
	}
	for _, want := range []string{"one", "two"} {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		got, err := b.ReadLine(ctx, "c> ", false)
		cancel()
		if err != nil || got != want {
			t.Fatalf("the next reader got %q (%v), want %q: a line was lost or came out of order", got, err, want)
		}
	}
	close(lines) // nothing reads on
}
