package runtime

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

// TestSessionRecords: a session is found by its owner only, a foreign and
// a missing id answer alike, and a later record cannot take an id over.
func TestSessionRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	for _, rec := range []SessionRecord{
		{ID: "ses_b", Principal: "local:ana", Created: t0.Add(time.Minute)},
		{ID: "ses_a", Principal: "local:ana", Created: t0},
		{ID: "ses_c", Principal: "local:ana", Parent: "ses_a", Created: t0.Add(2 * time.Minute)},
		{ID: "ses_x", Principal: "local:bo", Created: t0},
		{ID: "ses_a", Principal: "local:bo", Created: t0}, // taken: ignored
	} {
		if err := s.RecordSession(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RecordSession(ctx, SessionRecord{ID: "ses_y"}); err == nil {
		t.Fatal("recorded a session without a principal")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Session("local:ana", "ses_c")
	if err != nil || got.Parent != "ses_a" {
		t.Fatalf("%+v %v", got, err)
	}
	for _, q := range []struct{ principal, id string }{{"local:bo", "ses_a"}, {"local:ana", "ses_x"}, {"local:ana", "ses_none"}, {"", "ses_a"}} {
		if _, err := s.Session(q.principal, q.id); !errors.Is(err, ErrNoSession) {
			t.Errorf("Session(%q, %q) = %v, want ErrNoSession", q.principal, q.id, err)
		}
	}
	list, err := s.Sessions("local:ana")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range list {
		ids = append(ids, r.ID)
	}
	if len(ids) != 3 || ids[0] != "ses_a" || ids[1] != "ses_b" || ids[2] != "ses_c" {
		t.Fatalf("%v", ids)
	}
}
