package runtime

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// The first snapshot stored for a session is the one it keeps, across a
// reopened store; sessions and principals do not share one.
func TestBootstrapSnapshotIsMadeOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, ok, err := s.Bootstrap("p", "ses_1"); ok || err != nil {
		t.Fatalf("before: %v %v", ok, err)
	}
	got, err := s.PutBootstrapOnce(ctx, "p", "ses_1", []byte(`{"a":1}`))
	if err != nil || string(got) != `{"a":1}` {
		t.Fatalf("first put: %s %v", got, err)
	}
	got, err = s.PutBootstrapOnce(ctx, "p", "ses_1", []byte(`{"a":2}`))
	if err != nil || string(got) != `{"a":1}` {
		t.Fatalf("second put replaced the first: %s %v", got, err)
	}
	if _, ok, _ := s.Bootstrap("q", "ses_1"); ok {
		t.Fatal("another principal sees the snapshot")
	}
	if _, ok, _ := s.Bootstrap("p", "ses_2"); ok {
		t.Fatal("another session sees the snapshot")
	}
	if _, err := s.PutBootstrapOnce(ctx, "p", "ses_3", make([]byte, MaxBootstrapBytes+1)); err == nil || !strings.Contains(err.Error(), "over the") {
		t.Fatalf("oversized: %v", err)
	}
	s.Close()
	if s, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if v, ok, err := s.Bootstrap("p", "ses_1"); !ok || err != nil || string(v) != `{"a":1}` {
		t.Fatalf("after reopen: %s %v %v", v, ok, err)
	}
}
