package runtime

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckTodos(t *testing.T) {
	many := make([]TodoItem, MaxTodoItems+1)
	for i := range many {
		many[i] = TodoItem{ID: "i" + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + string(rune('a'+i/26)), Content: "c", Status: TodoPending}
	}
	big := make([]TodoItem, 40)
	for i := range big {
		big[i] = TodoItem{ID: "b" + string(rune('a'+i%26)) + string(rune('a'+i/26)), Content: strings.Repeat("x", 450), Status: TodoPending}
	}
	tests := []struct {
		name  string
		items []TodoItem
		want  string // "" is accepted
	}{
		{"empty", nil, ""},
		{"one of each", []TodoItem{{"a", "x", TodoPending}, {"b", "y", TodoInProgress}, {"c", "z", TodoCompleted}}, ""},
		{"too many", many, "items, at most"},
		{"too many bytes", big, "bytes of ids and content"},
		{"two in progress", []TodoItem{{"a", "x", TodoInProgress}, {"b", "y", TodoInProgress}}, "at most one item is in progress"},
		{"duplicate id", []TodoItem{{"a", "x", TodoPending}, {"a", "y", TodoPending}}, "used twice"},
		{"empty id", []TodoItem{{"", "x", TodoPending}}, "id must be"},
		{"path id", []TodoItem{{"../x", "x", TodoPending}}, "id must be"},
		{"long id", []TodoItem{{strings.Repeat("a", MaxTodoID+1), "x", TodoPending}}, "id must be"},
		{"blank content", []TodoItem{{"a", " \t", TodoPending}}, "content must be"},
		{"invalid utf-8", []TodoItem{{"a", "\xff", TodoPending}}, "content must be"},
		{"long content", []TodoItem{{"a", strings.Repeat("é", MaxTodoContent+1), TodoPending}}, "longer than"},
		{"unknown status", []TodoItem{{"a", "x", "done"}}, "status must be"},
		{"cancelled is not a status", []TodoItem{{"a", "x", "cancelled"}}, "status must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckTodos(tt.items)
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !errors.Is(err, ErrInvalidTodos) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestTodosDurableAndScoped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	items := []TodoItem{{"a", "first", TodoCompleted}, {"b", "second", TodoInProgress}}
	if _, err := s.ReplaceTodos(ctx, "alice", "ses_1", items); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplaceTodos(ctx, "alice", "ses_1", []TodoItem{{"x", "y", "bogus"}}); err == nil {
		t.Fatal("a bad list was stored")
	}
	s.Close()
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Todos("alice", "ses_1")
	if err != nil || len(got.Items) != 2 || got.Items[1] != items[1] || got.Updated.IsZero() {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
	// Another principal with the same session id, and another session,
	// see nothing.
	for _, k := range [][2]string{{"bob", "ses_1"}, {"alice", "ses_2"}} {
		if other, _ := s.Todos(k[0], k[1]); len(other.Items) != 0 {
			t.Fatalf("%v sees %+v", k, other)
		}
	}
	if _, err := s.ReplaceTodos(ctx, "alice", "ses_1", nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Todos("alice", "ses_1"); len(got.Items) != 0 || got.Items == nil {
		t.Fatalf("cleared list: %+v", got)
	}
	if _, err := s.ReplaceTodos(ctx, "", "ses_1", items); err == nil {
		t.Fatal("a list without a principal was stored")
	}
}

func TestMessageSessionsAndRange(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for session, n := range map[string]int{"a": 3, "ab": 1, "b": 300} {
		msgs := make([]MessageRecord, n)
		for i := range msgs {
			msgs[i] = MessageRecord{Role: "user", Text: "m"}
		}
		if _, err := s.AppendMessages(ctx, session, msgs); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.MessageSessions()
	if err != nil || len(got) != 3 || got["a"] != 3 || got["ab"] != 1 || got["b"] != 300 {
		t.Fatalf("MessageSessions = %v, %v", got, err)
	}
	r, err := s.MessagesRange("b", 290, 5)
	if err != nil || len(r) != 5 || r[0].Seq != 291 || r[4].Seq != 295 {
		t.Fatalf("MessagesRange = %d messages from %d, %v", len(r), r[0].Seq, err)
	}
	if r, _ := s.MessagesRange("a", 0, 10); len(r) != 3 || r[2].Session != "a" {
		t.Fatalf("range ran into the next session: %+v", r)
	}
}
