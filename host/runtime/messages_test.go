package runtime

import (
	"context"
	"path/filepath"
	"testing"
)

func TestMessagesAppendInOrderPerSession(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var seen int
	s.ObserveMessages(func(m []MessageRecord) { seen += len(m) })
	// "a" is a prefix of "ab": their ranges must not mix.
	for _, sess := range []string{"ab", "a", "ab"} {
		if _, err := s.AppendMessages(ctx, sess, []MessageRecord{{Role: "user", Text: sess + "1"}, {Role: "assistant", Text: sess + "2"}}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Messages("ab", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[0].Seq != 1 || got[3].Seq != 4 || got[2].Text != "ab1" {
		t.Fatalf("messages of ab: %+v", got)
	}
	if a, _ := s.Messages("a", 0); len(a) != 2 || a[1].Text != "a2" {
		t.Fatalf("messages of a: %+v", a)
	}
	if tail, _ := s.Messages("ab", 3); len(tail) != 1 || tail[0].Seq != 4 {
		t.Fatalf("after 3: %+v", tail)
	}
	if n, _ := s.MessageCount("a"); n != 2 {
		t.Fatalf("count of a = %d", n)
	}
	if n, _ := s.MessageCount("none"); n != 0 {
		t.Fatalf("count of none = %d", n)
	}
	if seen != 6 {
		t.Fatalf("observer saw %d messages, want 6", seen)
	}
}
