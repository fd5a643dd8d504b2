package termsession

import (
	"context"
	"io"
	"testing"
	"time"
)

// scriptedLines is a line source the test types into.
func scriptedLines() (*LineBroker, chan string, chan string) {
	typed := make(chan string)
	prompts := make(chan string, 16)
	b := &LineBroker{
		read: func(prompt string) (string, error) {
			prompts <- prompt
			l, ok := <-typed
			if !ok {
				return "", io.EOF
			}
			return l, nil
		},
		reprompt: func(p string) { prompts <- "re:" + p },
	}
	return b, typed, prompts
}

func expectPrompt(t *testing.T, prompts chan string, want string) {
	t.Helper()
	select {
	case p := <-prompts:
		if p != want {
			t.Fatalf("prompt %q, want %q", p, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no prompt %q within 5s", want)
	}
}

// TestLineBrokerNewestWaiterFirst: a question asked while the session's
// prompt waits takes the next line, then the prompt gets the one after.
func TestLineBrokerNewestWaiterFirst(t *testing.T) {
	b, typed, prompts := scriptedLines()
	ctx := context.Background()
	got := make(chan string, 2)
	go func() { l, _ := b.ReadLine(ctx, "> ", false); got <- "repl:" + l }()
	expectPrompt(t, prompts, "> ")
	go func() { l, _ := b.ReadLine(ctx, "allow? ", true); got <- "approval:" + l }()
	expectPrompt(t, prompts, "re:allow? ")
	typed <- "o"
	if g := <-got; g != "approval:o" {
		t.Fatalf("first line went to %s", g)
	}
	expectPrompt(t, prompts, "> ")
	typed <- "/help"
	if g := <-got; g != "repl:/help" {
		t.Fatalf("second line went to %s", g)
	}
}

// TestLineBrokerStaleLineNeverAnswersAQuestion: a line that arrives with no
// one waiting goes to the session's next prompt, never to an approval.
func TestLineBrokerStaleLineNeverAnswersAQuestion(t *testing.T) {
	b, typed, prompts := scriptedLines()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { _, err := b.ReadLine(ctx, "> ", false); done <- err }()
	expectPrompt(t, prompts, "> ")
	cancel()
	if err := <-done; err != context.Canceled {
		t.Fatalf("cancelled ReadLine: %v", err)
	}
	typed <- "o" // typed into the abandoned prompt
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		ready := b.ready != nil
		b.mu.Unlock()
		if ready {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the abandoned read never delivered its line")
		}
		time.Sleep(time.Millisecond)
	}
	got := make(chan string)
	go func() { l, _ := b.ReadLine(context.Background(), "allow? ", true); got <- l }()
	expectPrompt(t, prompts, "allow? ")
	typed <- "d"
	if l := <-got; l != "d" {
		t.Fatalf("the approval got %q: a stale line answered it", l)
	}
	close(typed)
	if _, err := b.ReadLine(context.Background(), "> ", false); err != io.EOF {
		t.Fatalf("after EOF: %v", err)
	}
}
