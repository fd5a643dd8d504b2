package termsession

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestChatClarifyInline: the front end asks the model's question on the
// session's input, after any stale line; a number picks a choice, other
// text is the answer; without a terminal no one can answer.
func TestChatClarifyInline(t *testing.T) {
	b, typed, prompts := scriptedLines()
	var out bytes.Buffer
	fe := &Chat{Out: &out, ErrOut: &out, Ask: b, Interrupt: func() {}}
	for _, tc := range []struct{ typed, want string }{{"2", "yaml"}, {" toml please ", "toml please"}, {"3", "3"}, {"0", "0"}} {
		got := make(chan string, 1)
		go func() {
			a, ok, err := fe.Clarify(context.Background(), "which \x1b[2Jformat?", []string{"json", "yaml"})
			if !ok || err != nil {
				a = "failed"
			}
			got <- a
		}()
		expectPrompt(t, prompts, "answer (1-2 or text): ")
		typed <- tc.typed
		if a := <-got; a != tc.want {
			t.Errorf("typed %q: answer %q, want %q", tc.typed, a, tc.want)
		}
	}
	if !strings.Contains(out.String(), "the agent asks: which ?[2Jformat?") || !strings.Contains(out.String(), "  2) yaml") {
		t.Errorf("question shown as %q", out.String())
	}
	headless := &Chat{Out: &out, ErrOut: &out}
	if _, ok, err := headless.Clarify(context.Background(), "q", nil); ok || err != nil {
		t.Errorf("without a terminal Clarify = %v, %v; want no one to answer", ok, err)
	}
}
