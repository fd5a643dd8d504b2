package runtime

import (
	"context"
	"testing"
	"time"
)

// TestRiddenMessagesWaitForTheNextCommit: messages that ride get no commit
// of their own, however long nothing else commits (a model step of
// seconds); the next Append takes them along in its one commit. A timed
// Submit made while they wait still commits within its short wait, and
// takes them with it.
func TestRiddenMessagesWaitForTheNextCommit(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := context.Background()
	before := s.Commits()
	if _, err := s.RideMessages(ctx, "ses_r", []MessageRecord{{Role: "tool", Text: "result"}}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * submitDelay)
	if n := s.Commits() - before; n != 0 {
		t.Fatalf("%d commits for riding messages alone, want none", n)
	}
	if got, _ := s.Messages("ses_r", 0); len(got) != 0 {
		t.Fatalf("riding messages on disk before any commit: %+v", got)
	}
	mustAppend(t, s, Event{Kind: "tool.call"})
	if n := s.Commits() - before; n != 1 {
		t.Fatalf("%d commits for the event and the riding messages, want 1", n)
	}
	if got, _ := s.Messages("ses_r", 0); len(got) != 1 || got[0].Text != "result" {
		t.Fatalf("after the append: %+v", got)
	}

	// A ride waiting, then a timed Submit: committed without an Append.
	if _, err := s.RideMessages(ctx, "ses_r", []MessageRecord{{Role: "assistant", Text: "next"}}); err != nil {
		t.Fatal(err)
	}
	var c submitted
	c.submit(t, s, 1)
	c.wait(t)
	if got, _ := s.Messages("ses_r", 0); len(got) != 2 || got[1].Text != "next" {
		t.Fatalf("the ride did not go with the timed submit's commit: %+v", got)
	}
}
