package runtime

import (
	"context"
	"path/filepath"
	"testing"
)

func TestActivationsSurviveReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "demiurge.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.RecordActivations(ctx, "ses_a", "turn_1", []string{"docs__search", "docs__fetch"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordActivations(ctx, "ses_a", "turn_2", []string{"docs__search"}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordActivations(ctx, "ses_ab", "turn_3", []string{"other"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Activations("ses_a")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("activations %+v, want 2 (a re-activation keeps the first record; another session's stay apart)", got)
	}
	for _, a := range got {
		if a.Turn != "turn_1" || a.Session != "ses_a" {
			t.Errorf("activation %+v", a)
		}
	}
	if err := s.RecordActivations(ctx, "", "t", []string{"x"}); err == nil {
		t.Error("an activation without a session was stored")
	}
}
