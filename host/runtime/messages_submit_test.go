package runtime

import (
	"context"
	"sync"
	"testing"
)

// TestSubmittedMessagesRideAlongAndKeepTheirOrder: submitted messages get
// their Seq at once, are not on disk (nor told to observers) until a
// commit takes them along, and then land in one commit with the event
// that was appended after them; a durable AppendMessages after a submit
// commits both in order; numbers go on from the file after a reopen.
func TestSubmittedMessagesRideAlongAndKeepTheirOrder(t *testing.T) {
	holdSubmits(t)
	s, path := openTemp(t)
	var mu sync.Mutex
	var observed []uint64
	s.ObserveMessages(func(msgs []MessageRecord) {
		mu.Lock()
		defer mu.Unlock()
		for _, m := range msgs {
			observed = append(observed, m.Seq)
		}
	})
	ctx := context.Background()
	before := s.Commits()
	sub, err := s.SubmitMessages(ctx, "ses_a", []MessageRecord{{Role: "user", Text: "hi"}, {Role: "assistant", Text: "calling"}})
	if err != nil || len(sub) != 2 || sub[0].Seq != 1 || sub[1].Seq != 2 {
		t.Fatalf("submitted %+v, %v", sub, err)
	}
	if got, _ := s.Messages("ses_a", 0); len(got) != 0 {
		t.Fatalf("submitted messages read back before any commit: %+v", got)
	}
	mu.Lock()
	if len(observed) != 0 {
		t.Fatalf("observers told of uncommitted messages %v", observed)
	}
	mu.Unlock()
	mustAppend(t, s, Event{Kind: "tool.call"})
	if n := s.Commits() - before; n != 1 {
		t.Fatalf("%d commits for the event and the submitted messages, want 1", n)
	}
	if got, _ := s.Messages("ses_a", 0); len(got) != 2 {
		t.Fatalf("after the append: %+v", got)
	}
	if _, err := s.SubmitMessages(ctx, "ses_a", []MessageRecord{{Role: "tool", Text: "result"}}); err != nil {
		t.Fatal(err)
	}
	last, err := s.AppendMessages(ctx, "ses_a", []MessageRecord{{Role: "assistant", Text: "done"}})
	if err != nil || last[0].Seq != 4 {
		t.Fatalf("appended %+v, %v", last, err)
	}
	got, _ := s.Messages("ses_a", 0)
	if len(got) != 4 || got[2].Text != "result" || got[3].Text != "done" {
		t.Fatalf("messages %+v", got)
	}
	mu.Lock()
	if len(observed) != 4 || observed[0] != 1 || observed[3] != 4 {
		t.Fatalf("observed %v, want 1..4 in order", observed)
	}
	mu.Unlock()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	next, err := s2.AppendMessages(ctx, "ses_a", []MessageRecord{{Role: "user", Text: "again"}})
	if err != nil || next[0].Seq != 5 {
		t.Fatalf("after reopening: %+v, %v", next, err)
	}
}

// TestCloseCommitsSubmittedMessages: nothing submitted is lost by a clean
// close.
func TestCloseCommitsSubmittedMessages(t *testing.T) {
	holdSubmits(t)
	s, path := openTemp(t)
	if _, err := s.SubmitMessages(context.Background(), "ses_b", []MessageRecord{{Role: "user", Text: "kept"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if got, _ := s2.Messages("ses_b", 0); len(got) != 1 || got[0].Text != "kept" {
		t.Fatalf("after close: %+v", got)
	}
}
