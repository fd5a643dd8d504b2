package runtime

import (
	"context"
	"path/filepath"
	"testing"
)

// FirstMessage reads a session's first message only, and never one of a
// session whose id merely starts the same.
func TestFirstMessage(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, sess := range []string{"ses_a", "ses_ab"} {
		if _, err := s.AppendMessages(ctx, sess, []MessageRecord{{Role: "user", Text: "first of " + sess}, {Role: "assistant", Text: "reply"}}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		session, want string
		ok            bool
	}{
		{"ses_a", "first of ses_a", true},
		{"ses_ab", "first of ses_ab", true},
		{"ses_", "", false},
		{"ses_abc", "", false},
	}
	for _, tc := range cases {
		m, ok, err := s.FirstMessage(tc.session)
		if err != nil || ok != tc.ok || m.Text != tc.want {
			t.Errorf("FirstMessage(%q) = %q, %v, %v; want %q, %v", tc.session, m.Text, ok, err, tc.want, tc.ok)
		}
	}
}
